package act

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestShapingReward(t *testing.T) {
	nonExpert, any, accOnly := DefaultShaping(), DefaultShaping(), AccuracyOnly()
	any.AdmReading = AdmAny
	cases := []struct {
		name                       string
		parsed, expert, admissible bool
		nonExpert, any, accOnly    float64
	}{
		{"unparsed", false, false, false, -0.5, -0.5, 0},
		{"unparsed but equal words cannot score", false, true, true, -0.5, -0.5, 0},
		{"expert", true, true, true, 1, 1.1, 1},
		{"admissible other", true, false, true, 0.1, 0.1, 0},
		{"inadmissible other", true, false, false, 0, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.InDelta(t, c.nonExpert, nonExpert.Reward(c.parsed, c.expert, c.admissible), 1e-12)
			assert.InDelta(t, c.any, any.Reward(c.parsed, c.expert, c.admissible), 1e-12)
			assert.InDelta(t, c.accOnly, accOnly.Reward(c.parsed, c.expert, c.admissible), 1e-12)
		})
	}
	assert.NoError(t, accOnly.Validate())
}

func TestShapingValidate(t *testing.T) {
	bad := DefaultShaping()
	bad.AdmReading = "sometimes"
	assert.Error(t, bad.Validate())
	nan := DefaultShaping()
	nan.Correct = nan.Correct * 0 / 0
	assert.Error(t, nan.Validate())
	assert.NoError(t, DefaultShaping().Validate())
}

package run

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
)

// A task's own counts travel from the summary into the evaluation
// record, NaN as null, and a record of a task without any is written as
// before, with no "extra" key.
func TestMeasuresCarryTheTasksCounts(t *testing.T) {
	plain := MeasuresOf(tasks.Summary{Success: 0.5, BTProxy: math.NaN()})
	assert.Nil(t, plain.Extra)
	b, err := json.Marshal(EvalRecord{Mode: "greedy", Measures: *plain})
	require.NoError(t, err)
	assert.NotContains(t, string(b), "extra")

	m := MeasuresOf(tasks.Summary{Extra: map[string]float64{"tool_errors": 1.5, "tool_turn_ratio": math.NaN()}})
	b, err = json.Marshal(EvalRecord{Mode: "sampled", Measures: *m})
	require.NoError(t, err)
	assert.Contains(t, string(b), `"extra":{"tool_errors":1.5,"tool_turn_ratio":null}`)
	var back EvalRecord
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, Num(1.5), back.Extra["tool_errors"])
	assert.True(t, math.IsNaN(float64(back.Extra["tool_turn_ratio"])))

	var tags []string
	for _, s := range evalScalars("eval", Modes{Sampled: m}) {
		tags = append(tags, s.Tag)
	}
	assert.Subset(t, tags, []string{"eval/sampled/success", "eval/sampled/tool_errors", "eval/sampled/tool_turn_ratio"})
}

package rl

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/kernels"
	"arew/tasks"
)

// One trajectory, reward 1, values 0, γ = λ = 1: GAE gives A = 1 on every
// agent prediction. Steps: AS +1 (2 tokens), BT −1 (1 token), AS +1 (1 token)
// → |P| = 2, |N| = 1, u = +1/2 on the tokens of the + steps, −1 on the −
// step (copied form). With λ = 0.4: Â = 1 + 0.2 on + tokens, 1 − 0.4 on the −.
func TestAdvantagesAREWStepMode(t *testing.T) {
	tr := episode(2, 1, 0, turn{2, 1, tasks.AS, 1}, turn{1, 1, tasks.BT, -1}, turn{1, 0, tasks.AS, 1})
	b, err := NewBatch([]*Trajectory{tr})
	require.NoError(t, err)
	cfg := AdvantageConfig{Estimator: "gae", Gamma: 1, Lambda: 1,
		AREW: AREW{Critiques: "as+bt", Lambda: 0.4, Mode: kernels.MarginStep}}
	st, err := Advantages(b, cfg, 0, rand.New(rand.NewPCG(1, 1)))
	require.NoError(t, err)
	// Predictions: tokens 1..6 = P A A O A O A → mask 0 1 1 0 1 0 1.
	assert.Equal(t, []uint8{0, 1, 1, 0, 1, 0, 1}, b.Packed.Mask)
	assert.InDeltaSlice(t, []float32{0, 1.2, 1.2, 0, 0.6, 0, 1.2}, b.Adv, 1e-6)
	// The critic's targets never see the correction: returns = A_gae + V = 1.
	assert.InDeltaSlice(t, []float32{0, 1, 1, 0, 1, 0, 1}, b.Returns, 1e-6)
	assert.Equal(t, 1.0, st.MarginTrajectories)
	assert.InDelta(t, (0.2*3+0.4)/4, st.MeanAbsCorrection, 1e-6)
	// Per kind: AS carries 0.2 on three tokens, BT 0.4 on one; the shares add up.
	assert.InDelta(t, 0.6/4, st.AS.AbsCorrection, 1e-6)
	assert.InDelta(t, 0.4/4, st.BT.AbsCorrection, 1e-6)
	assert.InDelta(t, st.MeanAbsCorrection, st.AS.AbsCorrection+st.BT.AbsCorrection, 1e-9)
	assert.Equal(t, KindStats{AbsCorrection: st.AS.AbsCorrection, Pos: 1, Neg: 0}, st.AS)
	assert.Equal(t, KindStats{AbsCorrection: st.BT.AbsCorrection, Pos: 0, Neg: 1}, st.BT)

	// Outside its window the correction is off.
	cfg.AREW.Start = 5
	_, err = Advantages(b, cfg, 4, rand.New(rand.NewPCG(1, 1)))
	require.NoError(t, err)
	assert.InDeltaSlice(t, []float32{0, 1, 1, 0, 1, 0, 1}, b.Adv, 1e-6)
}

// Separate margins: AS steps {+1, −1} and BT steps {+1, +1}. Joint: |P| = 3,
// |N| = 1. Separate: the AS margin has |P| = |N| = 1, the BT margin is
// one-sided and vanishes.
func TestAdvantagesSeparateMargins(t *testing.T) {
	tr := episode(1, 0, 0, turn{1, 1, tasks.AS, 1}, turn{1, 1, tasks.BT, 1}, turn{1, 1, tasks.AS, -1}, turn{1, 0, tasks.BT, 1})
	joint, err := NewBatch([]*Trajectory{tr})
	require.NoError(t, err)
	cfg := AdvantageConfig{Estimator: "drgrpo", AREW: AREW{Critiques: "as+bt", Lambda: 1, Mode: kernels.MarginStep}}
	_, err = Advantages(joint, cfg, 0, nil)
	require.NoError(t, err)
	// A single trajectory in its group: group baseline 0 (mean subtracted).
	agent := func(b *Batch) []float32 {
		var out []float32
		for i, m := range b.Packed.Mask {
			if m == 1 {
				out = append(out, b.Adv[i])
			}
		}
		return out
	}
	assert.InDeltaSlice(t, []float32{1.0 / 3, 1.0 / 3, -1, 1.0 / 3}, agent(joint), 1e-6)

	sep, err := NewBatch([]*Trajectory{tr})
	require.NoError(t, err)
	cfg.AREW.Separate = true
	_, err = Advantages(sep, cfg, 0, nil)
	require.NoError(t, err)
	assert.InDeltaSlice(t, []float32{1, 0, -1, 0}, agent(sep), 1e-6)
}

// A bad estimator, critique set or margin mode is refused by Validate
// (every trainer validates its config when it is built), and a mode's
// unknown name already when the config is read.
func TestAdvantageConfigRejectsBadEnums(t *testing.T) {
	for name, cfg := range map[string]AdvantageConfig{
		"estimator": {Estimator: "td"},
		"mode":      {Estimator: EstimatorGRPO, AREW: AREW{Critiques: CritiquesAS, Lambda: 1, Mode: kernels.MarginMode(9)}},
		"kinds":     {Estimator: EstimatorGRPO, AREW: AREW{Critiques: "everything", Lambda: 1}},
	} {
		assert.Error(t, cfg.Validate(), name)
	}
	var a AREW
	assert.ErrorContains(t, json.Unmarshal([]byte(`{"mode": "spread-ish"}`), &a), "spread-ish")
	require.NoError(t, json.Unmarshal([]byte(`{"critiques": "as+bt", "mode": "abs_sum"}`), &a))
	assert.Equal(t, AREW{Critiques: CritiquesBoth, Mode: kernels.MarginAbsSum}, a)
}

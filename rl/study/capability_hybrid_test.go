package study

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/rl"
	"arew/rl/run"
	"arew/tasks"
)

// EvaluateHybrid gives the policy only the belief turns: an untrained
// tiny policy, whatever its beliefs, keeps the strong queries' AS proxy and
// I_AS (PE's strong queries do not depend on the stated beliefs).
func TestEvaluateHybrid(t *testing.T) {
	cfg, b := tinyStrongBase(t, "pe-f-d6")
	rows, err := EvaluateHybrid(t.Context(), b.Policy, cfg, 20, nil)
	require.NoError(t, err)
	require.Len(t, rows, 2)
	src, _, err := rl.BaseSources(cfg)
	require.NoError(t, err)
	strong, err := run.ScriptedBaselines(src[0].Task, []tasks.PolicySpec{{Kind: "strong"}}, tasks.Val, 20, 1)
	require.NoError(t, err)
	for _, r := range rows {
		assert.Equal(t, "plain", r.Source)
		assert.Equal(t, 1.0, float64(r.Measures.ASProxy), r.Policy)
		assert.InDelta(t, float64(strong[0].Measures.IAS), float64(r.Measures.IAS), 1e-12, r.Policy)
	}
}

// A task without belief turns (telecom) has no hybrid rows, and its
// capability report says so.
func TestEvaluateHybridWithoutBeliefs(t *testing.T) {
	cfg, b := tinyStrongBase(t, "telecom-dual")
	rows, err := EvaluateHybrid(t.Context(), b.Policy, cfg, 4, nil)
	require.NoError(t, err)
	assert.Empty(t, rows)
	s := CapabilitySummary{Name: "telecom-dual", Config: cfg, Beliefs: run.Num(math.NaN()), Strong: 1}
	assert.Contains(t, s.Report(), "none, the task has no belief turns")
}

// tinyStrongBase is a tiny policy after one SFT epoch on 8 strong
// demonstrations of task, and its recipe; closed when the test ends.
func tinyStrongBase(t *testing.T, task string) (rl.BaseConfig, *rl.Base) {
	sft := rl.DefaultSFTConfig()
	sft.Epochs = 1
	cfg := rl.BaseConfig{Task: task, Preset: "tiny", Seed: 1, SFT: sft, Sources: []rl.DemoSource{
		{Name: "plain", Policy: tasks.PolicySpec{Kind: "strong"}, Demos: 8, TestDemos: 2}}}
	b, err := rl.NewBase(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(b.Close)
	return cfg, b
}

package run

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/rl"
	_ "arew/tasks/all"
)

// experimentOf builds (does not run) the default experiment on preset,
// changed by edit.
func experimentOf(t *testing.T, algo rl.Algo, preset string, edit func(*Config)) *Experiment {
	t.Helper()
	c := DefaultConfig(algo)
	c.Name, c.Model.Preset = "x", preset
	if edit != nil {
		edit(&c)
	}
	require.NoError(t, c.Normalise())
	require.NoError(t, c.Validate())
	e, err := build(c, "", &bytes.Buffer{})
	require.NoError(t, err)
	return e
}

// The estimate of every preset's default run, GRPO's too, is far below
// any machine the command runs on, and grows with each size the issue's
// hostile cases inflate; a budget below the estimate is an input error
// naming the phase.
func TestMemoryEstimate(t *testing.T) {
	for _, tc := range []struct {
		algo   rl.Algo
		preset string
		edit   func(*Config)
	}{
		{rl.AlgoPPO, "tiny", nil}, {rl.AlgoPPO, "small", nil}, {rl.AlgoPPO, "base", nil}, {rl.AlgoGRPO, "base", nil},
		{rl.AlgoPPO, "base", func(c *Config) { c.Policy().KLCoef, c.Eval.Episodes, c.SFT.Demos = 0.1, 1000, 10000 }},
	} {
		m := estimateMemory(experimentOf(t, tc.algo, tc.preset, tc.edit))
		t.Logf("%s %s: sft %s, update %s, eval %s", tc.algo, tc.preset, gib(m.sft), gib(m.update), gib(m.eval))
		assert.Less(t, m.total(), float64(2<<30), "%s %s", tc.algo, tc.preset)
	}
	base := estimateMemory(experimentOf(t, rl.AlgoPPO, "tiny", nil))
	for name, tc := range map[string]struct {
		edit  func(*Config)
		field func(memoryNeed) float64
	}{
		"sft demos":      {func(c *Config) { c.SFT.Demos = 1e6 }, func(m memoryNeed) float64 { return m.sft }},
		"sft test demos": {func(c *Config) { c.SFT.TestDemos = 1e6 }, func(m memoryNeed) float64 { return m.sft }},
		"episodes":       {func(c *Config) { c.PPO.Episodes = 1e6 }, func(m memoryNeed) float64 { return m.update }},
		"eval episodes":  {func(c *Config) { c.Eval.Episodes = 1e6 }, func(m memoryNeed) float64 { return m.eval }},
	} {
		m := estimateMemory(experimentOf(t, rl.AlgoPPO, "tiny", tc.edit))
		assert.Greater(t, tc.field(m), 50*tc.field(base), name)
	}
	e := experimentOf(t, rl.AlgoPPO, "tiny", nil)
	assert.NoError(t, checkMemory(e, base.total()))
	err := checkMemory(e, base.total()/2)
	var input *InputError
	assert.ErrorAs(t, err, &input)
	assert.ErrorContains(t, err, "more than the")
	assert.Greater(t, rl.MachineMemory(), float64(64<<20))
}

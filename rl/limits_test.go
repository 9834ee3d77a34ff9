package rl

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/model"
)

// Every rate and coefficient is refused beyond float32's range (1e300 is
// finite in float64 and +Inf in the float32 weights), and the worker count
// is capped; the largest float32 itself is accepted.
func TestRatesWithinFloat32(t *testing.T) {
	for name, mut := range map[string]func(*PPOConfig){
		"lr":            func(c *PPOConfig) { c.Policy.Optim.LR = 1e300 },
		"critic lr":     func(c *PPOConfig) { c.Critic.Optim.LR = 1e300 },
		"eps":           func(c *PPOConfig) { c.Policy.Optim.Eps = 1e300 },
		"weight decay":  func(c *PPOConfig) { c.Policy.Optim.WeightDecay = 1e300 },
		"entropy":       func(c *PPOConfig) { c.Policy.EntropyCoef = 1e300 },
		"kl":            func(c *PPOConfig) { c.Policy.KLCoef = 1e300 },
		"clip high":     func(c *PPOConfig) { c.Policy.ClipHigh = 1e300 },
		"dual clip":     func(c *PPOConfig) { c.Policy.DualClip = 1e300 },
		"norm const":    func(c *PPOConfig) { c.Policy.NormConst = 1e300 },
		"value coef":    func(c *PPOConfig) { c.Critic.Mode, c.Critic.ValueCoef = "shared", 1e300 },
		"arew lambda":   func(c *PPOConfig) { c.Advantage.AREW.Lambda = -1e300 },
		"lr NaN":        func(c *PPOConfig) { c.Policy.Optim.LR = math.NaN() },
		"workers 1e9":   func(c *PPOConfig) { c.Rollout.Workers = 1e9 },
		"workers 4097":  func(c *PPOConfig) { c.Rollout.Workers = MaxWorkers + 1 },
		"entropy +Inf":  func(c *PPOConfig) { c.Policy.EntropyCoef = math.Inf(1) },
		"clip high Inf": func(c *PPOConfig) { c.Policy.ClipHigh = math.Inf(1) },
	} {
		c := DefaultPPOConfig()
		mut(&c)
		assert.Error(t, c.Validate(), name)
	}
	g := DefaultGRPOConfig()
	g.Advantage.GroupEps = 1e300
	assert.ErrorContains(t, g.Validate(), "float32")
	g = DefaultGRPOConfig()
	g.Policy.Optim.LR = 1e39
	assert.ErrorContains(t, g.Validate(), "float32")
	s := DefaultSFTConfig()
	s.Optim.LR = 1e300
	assert.ErrorContains(t, s.Validate(), "float32")

	c := DefaultPPOConfig()
	c.Policy.Optim.LR, c.Policy.EntropyCoef, c.Advantage.AREW.Lambda = MaxRate, MaxRate, -MaxRate
	c.Rollout.Workers = MaxWorkers
	assert.NoError(t, c.Validate())
}

// The memory estimates are linear in the sizes they count, never overflow,
// and put the defaults far below a gigabyte.
func TestMemoryEstimates(t *testing.T) {
	pc, err := model.NewConfig("small", 32, 160)
	require.NoError(t, err)
	const maxLen = 150
	ppo := DefaultPPOConfig()
	grpo := DefaultGRPOConfig()
	sft := DefaultSFTConfig()
	ev := DefaultEvalConfig()
	for name, b := range map[string]float64{
		"ppo": ppo.MemoryEstimate(pc, maxLen), "grpo": grpo.MemoryEstimate(pc, maxLen),
		"sft": sft.MemoryEstimate(pc, maxLen, 2048), "eval": ev.MemoryEstimate(pc, maxLen),
	} {
		assert.Greater(t, b, float64(1<<20), name)
		assert.Less(t, b, float64(1<<30), name)
	}

	r := RolloutConfig{Workers: 1, Slots: 4}
	one, two := r.MemoryEstimate(pc, maxLen, 1000), r.MemoryEstimate(pc, maxLen, 2000)
	dec := decoderMemory(pc, 4)
	assert.InDelta(t, 2*(one-dec), two-dec, 1, "linear in the episodes")
	r.Slots = 8
	assert.InDelta(t, dec, r.MemoryEstimate(pc, maxLen, 1000)-one, 1, "linear in the slots")
	r.Workers = 4
	assert.InDelta(t, r.MemoryEstimate(pc, maxLen, 2)-trajectoryMemory(2, maxLen), 2*decoderMemory(pc, 8), 1,
		"only the workers that play count")

	for name, b := range map[string]float64{
		"episodes": RolloutConfig{Workers: 1, Slots: 1}.MemoryEstimate(pc, maxLen, math.MaxInt),
		"slots":    RolloutConfig{Workers: 1, Slots: math.MaxInt}.MemoryEstimate(pc, maxLen, 1),
		"prompts":  GRPOConfig{Prompts: math.MaxInt, GroupSize: math.MaxInt, Rollout: RolloutConfig{Slots: 1}, Policy: DefaultPolicy()}.MemoryEstimate(pc, maxLen),
		"demos":    SFTConfig{MiniBatch: math.MaxInt}.MemoryEstimate(pc, maxLen, math.MaxInt),
	} {
		assert.Greater(t, b, 1e18, name)
		assert.False(t, math.IsInf(b, 0) || math.IsNaN(b), name)
	}
}

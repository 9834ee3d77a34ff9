package rl

import (
	"arew/kernels"
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// flodialPPOConfig is PPO + AREW on flodial-easy at test size.
func flodialPPOConfig() PPOConfig {
	c := DefaultPPOConfig()
	c.Episodes = 8
	c.Policy.MiniBatch = 4
	c.Policy.Epochs = 2
	c.Rollout.Workers = 2
	c.Advantage.AREW = AREW{Critiques: "as+bt", Lambda: 0.5, Mode: kernels.MarginStep}
	return c
}

// At the first minibatch of the first epoch the policy has not moved since
// the old log-probs were recomputed by the same graph, so every ratio is
// exactly 1: log r = 0 bitwise, no token clipped, approx KL 0 — even though
// the minibatch holds the trajectories in another order than the
// recomputation did (the graph's rows are independent). The decoder's
// sampling log-probs agree with the graph's to float32 rounding.
func TestPPOFirstMinibatchIsOnPolicy(t *testing.T) {
	task := flodialEasy(t)
	cfg := flodialPPOConfig()
	cfg.Policy.Epochs, cfg.Policy.MiniBatch = 1, cfg.Episodes // one minibatch: its metrics are the first's
	cfg.Policy.KLCoef = 0.1                                   // the reference is the initial policy
	ppo, err := NewPPO(task, tinyPolicy(t, task, 12, false), nil, cfg)
	require.NoError(t, err)
	defer ppo.Close()
	m, err := ppo.Update()
	require.NoError(t, err)
	assert.Equal(t, 1, m.OptimSteps)
	assert.Zero(t, m.FirstLogRatioMax)
	assert.Zero(t, m.ClipFrac)
	assert.Zero(t, m.ClipFracLower)
	assert.Zero(t, m.ApproxKL)
	assert.Zero(t, m.RefKL)
	assert.Less(t, m.LogpGapMax, 1e-4)
	t.Logf("max |sampling − recomputed| log-prob %.2g", m.LogpGapMax)

	// Later minibatches see a moved policy; 3 + 3 + 2 rows (the last
	// minibatch padded).
	cfg.Policy.MiniBatch = 3
	ppo2, err := NewPPO(task, tinyPolicy(t, task, 12, false), nil, cfg)
	require.NoError(t, err)
	defer ppo2.Close()
	m, err = ppo2.Update()
	require.NoError(t, err)
	assert.Zero(t, m.FirstLogRatioMax)
	assert.Equal(t, 3, m.OptimSteps)
	assert.NotZero(t, m.ApproxKL, "the mean over 3 minibatches includes moved ones")
	assert.NotZero(t, m.RefKL)
}

// A full PPO + AREW update on flodial-easy with the tiny model, a separate
// critic, an entropy bonus and a KL to the initial policy, then GRPO and
// GSPO with AREW and a shared-critic PPO: every metric that applies is
// finite, and the AREW correction reached some trajectories.
func TestTrainersRunOnFloDial(t *testing.T) {
	task := flodialEasy(t)
	ppoKL := flodialPPOConfig()
	ppoKL.Policy.EntropyCoef, ppoKL.Policy.KLCoef = 1e-3, 0.05
	shared := flodialPPOConfig()
	shared.Critic.Mode = "shared"
	grpo := DefaultGRPOConfig()
	grpo.Prompts, grpo.GroupSize, grpo.Policy.MiniBatch = 2, 4, 4
	grpo.Advantage.AREW = AREW{Critiques: "as", Lambda: 0.5, Mode: kernels.MarginMinorityFixed}
	gspo := DefaultGSPOConfig()
	gspo.Prompts, gspo.GroupSize, gspo.Policy.MiniBatch = 2, 4, 4
	gspo.Advantage.Estimator = "drgrpo"
	gspo.Advantage.AREW = AREW{Critiques: "as+bt", Lambda: 0.5, Mode: kernels.MarginStep, Separate: true}
	cases := []struct {
		name string
		make func() (Trainer, error)
		nan  []string // metrics that do not apply
	}{
		{"ppo+arew+kl", func() (Trainer, error) {
			return NewPPO(task, tinyPolicy(t, task, 13, false), nil, ppoKL)
		}, nil},
		{"ppo shared", func() (Trainer, error) {
			return NewPPO(task, tinyPolicy(t, task, 14, true), nil, shared)
		}, []string{"ref_kl", "critic_grad_norm", "critic_lr"}},
		{"grpo+arew", func() (Trainer, error) { return NewGRPO(task, tinyPolicy(t, task, 15, false), grpo) },
			[]string{"ref_kl", "critic_grad_norm", "critic_lr", "value_loss", "value_clip_frac"}},
		{"gspo+arew", func() (Trainer, error) { return NewGRPO(task, tinyPolicy(t, task, 16, false), gspo) },
			[]string{"ref_kl", "critic_grad_norm", "critic_lr", "value_loss", "value_clip_frac"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, err := c.make()
			require.NoError(t, err)
			defer tr.Close()
			for u := range 2 {
				m, err := tr.Update()
				require.NoError(t, err)
				raw, err := json.Marshal(m)
				require.NoError(t, err)
				var fields map[string]any
				require.NoError(t, json.Unmarshal(raw, &fields))
				for k, v := range fields {
					if contains(c.nan, k) {
						assert.Nil(t, v, "%s does not apply", k)
					} else {
						assert.NotNil(t, v, "%s is not finite", k)
					}
				}
				assert.Equal(t, 8, m.Episodes)
				assert.True(t, m.AREWActive)
				if u == 1 {
					t.Logf("%s", raw)
				}
			}
		})
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// timeless zeroes the wall-clock fields of metrics.
func timeless(m Metrics) Metrics {
	m.RolloutSeconds, m.PrepSeconds, m.OptimSeconds, m.RolloutTokensPerSec, m.TrainTokensPerSec = 0, 0, 0, 0, 0
	return m
}

// Same seed and config → the same metrics, update after update, whatever
// the number of rollout workers; another seed → other metrics.
func TestTrainerIsDeterministic(t *testing.T) {
	task := flodialEasy(t)
	run := func(seed uint64, workers int) []Metrics {
		cfg := flodialPPOConfig()
		cfg.Seed, cfg.Rollout.Workers = seed, workers
		cfg.Advantage.AREW.Perturb.Flip = 0.3 // the perturbation's stream too
		ppo, err := NewPPO(task, tinyPolicy(t, task, 17, false), nil, cfg)
		require.NoError(t, err)
		defer ppo.Close()
		var out []Metrics
		for range 2 {
			m, err := ppo.Update()
			require.NoError(t, err)
			out = append(out, timeless(m))
		}
		return out
	}
	a, b, c := run(5, 1), run(5, 3), run(6, 2)
	for u := range a {
		ja, err := json.Marshal(a[u]) // NaN ≠ NaN: compare the encodings
		require.NoError(t, err)
		jb, err := json.Marshal(b[u])
		require.NoError(t, err)
		assert.JSONEq(t, string(ja), string(jb), "update %d", u)
		assert.NotEqual(t, a[u].PolicyLoss, c[u].PolicyLoss)
	}
}

// Metrics survive a JSON round trip, NaN as null.
func TestMetricsJSON(t *testing.T) {
	m := Metrics{Update: 3, Algo: "ppo", Reward: 0.5, BTProxy: math.NaN(), RefKL: math.Inf(1), Truncated: 2}
	raw, err := json.Marshal(m)
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"bt_proxy":null`)
	assert.Contains(t, string(raw), `"ref_kl":null`)
	assert.Contains(t, string(raw), `"update":3,"algo":"ppo"`)
	var back Metrics
	require.NoError(t, json.Unmarshal(raw, &back))
	assert.True(t, math.IsNaN(back.BTProxy))
	assert.Equal(t, 0.5, back.Reward)
	assert.Equal(t, 2, back.Truncated)
	assert.Zero(t, back.PolicyLoss)
}

// Bad configurations fail before any work, naming the field.
func TestTrainerConfigValidation(t *testing.T) {
	task := newBandit(4)
	ppoCases := map[string]func(*PPOConfig){
		"episodes":     func(c *PPOConfig) { c.Episodes = 0 },
		"estimator":    func(c *PPOConfig) { c.Advantage.Estimator = "grpo" },
		"gamma":        func(c *PPOConfig) { c.Advantage.Gamma = 1.5 },
		"critiques":    func(c *PPOConfig) { c.Advantage.AREW.Critiques = "all" },
		"mode":         func(c *PPOConfig) { c.Advantage.AREW = AREW{Critiques: "as", Lambda: 1, Mode: kernels.MarginMode(-1)} },
		"window":       func(c *PPOConfig) { c.Advantage.AREW.Start, c.Advantage.AREW.End = 5, 5 },
		"flip":         func(c *PPOConfig) { c.Advantage.AREW.Perturb.Flip = 2 },
		"epochs":       func(c *PPOConfig) { c.Policy.Epochs = 0 },
		"clip_low":     func(c *PPOConfig) { c.Policy.ClipLow = 1 },
		"dual_clip":    func(c *PPOConfig) { c.Policy.DualClip = 0.5 },
		"loss_agg":     func(c *PPOConfig) { c.Policy.LossAgg = "mean" },
		"kl_estimator": func(c *PPOConfig) { c.Policy.KLCoef, c.Policy.KLEstimator = 0.1, "k9" },
		"lr":           func(c *PPOConfig) { c.Policy.Optim.LR = 0 },
		"max_grad":     func(c *PPOConfig) { c.Policy.Optim.MaxGradNorm = 0 },
		"critic mode":  func(c *PPOConfig) { c.Critic.Mode = "twin" },
		"value_clip":   func(c *PPOConfig) { c.Critic.ValueClip = 0 },
		"critic lr":    func(c *PPOConfig) { c.Critic.Optim.LR = -1 },
		"slots":        func(c *PPOConfig) { c.Rollout.Slots = 0 },
	}
	for name, mut := range ppoCases {
		cfg := banditPPOConfig()
		mut(&cfg)
		_, err := NewPPO(task, tinyPolicy(t, task, 1, false), nil, cfg)
		assert.Error(t, err, name)
	}
	// A shared critic needs a value head.
	cfg := banditPPOConfig()
	cfg.Critic.Mode = "shared"
	_, err := NewPPO(task, tinyPolicy(t, task, 1, false), nil, cfg)
	assert.ErrorContains(t, err, "value head")

	for name, mut := range map[string]func(*GRPOConfig){
		"objective": func(c *GRPOConfig) { c.Objective = "ppo" },
		"estimator": func(c *GRPOConfig) { c.Advantage.Estimator = "gae" },
		"group":     func(c *GRPOConfig) { c.GroupSize = 0 },
		"eps":       func(c *GRPOConfig) { c.Advantage.GroupEps = -1 },
	} {
		cfg := banditGRPOConfig("grpo")
		mut(&cfg)
		_, err := NewGRPO(task, tinyPolicy(t, task, 1, false), cfg)
		assert.Error(t, err, name)
	}
}

// The defaults are valid and survive a JSON round trip (a run's
// config.json), unknown fields rejected.
func TestDefaultConfigsJSON(t *testing.T) {
	for name, c := range map[string]any{
		"ppo": DefaultPPOConfig(), "grpo": DefaultGRPOConfig(), "gspo": DefaultGSPOConfig(),
		"sft": DefaultSFTConfig(), "eval": DefaultEvalConfig(),
	} {
		if v, ok := c.(interface{ Validate() error }); ok {
			require.NoError(t, v.Validate(), name)
		}
		raw, err := json.Marshal(c)
		require.NoError(t, err, name)
		back := reflect.New(reflect.TypeOf(c))
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		require.NoError(t, dec.Decode(back.Interface()), name)
		assert.Equal(t, c, back.Elem().Interface(), name)
		t.Logf("%s: %s", name, raw)
	}
}

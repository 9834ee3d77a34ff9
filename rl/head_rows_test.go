package rl

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHeadRowsUpdateMatchesPlain: one update on flodial-easy (tiny policy,
// 16 episodes, minibatches of 8, 2 epochs: 4 optimiser steps per network)
// with PolicyConfig.HeadRows on and off, from the same weights and seed:
// the same episodes, and losses, gradient norms and advantages within
// float32 rounding carried through four steps (relative 1e-5; measured
// ≤ 4e-7). PPO with a separate critic, PPO with a shared critic, entropy
// bonus and KL, GSPO (no critic) with an entropy bonus, and GRPO on a
// masked task (the logit bias gathered at the listed rows).
func TestHeadRowsUpdateMatchesPlain(t *testing.T) {
	task := flodialEasy(t)
	type run func(headRows bool) Metrics
	ppo := func(shared bool) run {
		return func(headRows bool) Metrics {
			cfg := DefaultPPOConfig()
			cfg.Episodes, cfg.Policy.MiniBatch = 16, 8
			cfg.Policy.HeadRows = headRows
			if shared {
				cfg.Critic.Mode = "shared"
				cfg.Policy.EntropyCoef, cfg.Policy.KLCoef = 0.01, 0.05
			}
			tr, err := NewPPO(task, tinyPolicy(t, task, 5, shared), nil, cfg)
			require.NoError(t, err)
			defer tr.Close()
			m, err := tr.Update()
			require.NoError(t, err)
			if headRows {
				agent := 0
				for _, mk := range tr.rows.packed.Mask {
					agent += int(mk)
				}
				assert.GreaterOrEqual(t, tr.actor.g.HeadCapacity(), agent, "the capacity grew to the minibatch's agent rows")
				if tr.criticG != nil {
					assert.Equal(t, tr.actor.g.HeadCapacity(), tr.criticG.g.HeadCapacity())
				}
			}
			return m
		}
	}
	gspo := func(headRows bool) Metrics {
		cfg := DefaultGRPOConfig()
		cfg.Prompts, cfg.GroupSize, cfg.Objective = 4, 4, "gspo"
		cfg.Policy.MiniBatch, cfg.Policy.EntropyCoef = 8, 0.01 // the entropy bonus: a gradient even where every reward ties
		cfg.Policy.HeadRows = headRows
		tr, err := NewGRPO(task, tinyPolicy(t, task, 6, false), cfg)
		require.NoError(t, err)
		defer tr.Close()
		m, err := tr.Update()
		require.NoError(t, err)
		return m
	}
	masked := func(headRows bool) Metrics { // a masked task: the logit bias at the listed rows
		task := &spell{bandit: newBandit(4), masked: true}
		cfg := banditGRPOConfig("grpo")
		cfg.Policy.HeadRows = headRows
		tr, err := NewGRPO(task, tinyPolicy(t, task, 4, false), cfg)
		require.NoError(t, err)
		defer tr.Close()
		m, err := tr.Update()
		require.NoError(t, err)
		require.NotNil(t, tr.rows.bias, "a masked trainer")
		return m
	}
	for name, f := range map[string]run{"ppo separate critic": ppo(false), "ppo shared critic, entropy, KL": ppo(true), "gspo": gspo, "grpo masked": masked} {
		plain, heads := f(false), f(true)
		assert.Equal(t, plain.Reward, heads.Reward, "%s: the same episodes", name)
		assert.Equal(t, plain.ResponseLen, heads.ResponseLen, "%s: the same episodes", name)
		assert.Zero(t, heads.FirstLogRatioMax, "%s: old log-probs from the same graph", name)
		assert.Equal(t, plain.OptimSteps, heads.OptimSteps, name)
		worst := 0.0
		for field, v := range map[string][2]float64{
			"policy loss": {plain.PolicyLoss, heads.PolicyLoss}, "value loss": {plain.ValueLoss, heads.ValueLoss},
			"entropy": {plain.Entropy, heads.Entropy}, "approx KL": {plain.ApproxKL, heads.ApproxKL},
			"ref KL": {plain.RefKL, heads.RefKL}, "grad norm": {plain.GradNorm, heads.GradNorm},
			"critic grad norm": {plain.CriticGradNorm, heads.CriticGradNorm},
			"adv mean":         {plain.AdvMean, heads.AdvMean}, "adv std": {plain.AdvStd, heads.AdvStd},
			"clip frac": {plain.ClipFrac, heads.ClipFrac}, "logp gap": {plain.LogpGapMax, heads.LogpGapMax},
		} {
			if math.IsNaN(v[0]) {
				assert.True(t, math.IsNaN(v[1]), "%s: %s is NaN in both", name, field)
				continue
			}
			d := math.Abs(v[0]-v[1]) / max(math.Abs(v[0]), 1e-2)
			worst = max(worst, d)
			assert.LessOrEqual(t, d, 1e-5, "%s: %s %g against %g", name, field, v[1], v[0])
		}
		t.Logf("%s: policy loss %.7g against %.7g, grad norm %.7g against %.7g, critic grad norm %.7g against %.7g; worst relative gap %.2g",
			name, heads.PolicyLoss, plain.PolicyLoss, heads.GradNorm, plain.GradNorm, heads.CriticGradNorm, plain.CriticGradNorm, worst)
	}
}

// TestHeadRowsConfig: off by default and absent from a default config's
// JSON (so every existing config decodes and writes as before); refused
// with a shared prompt.
func TestHeadRowsConfig(t *testing.T) {
	for _, c := range []any{DefaultPPOConfig(), DefaultGRPOConfig()} {
		raw, err := json.Marshal(c)
		require.NoError(t, err)
		assert.NotContains(t, string(raw), "head_rows")
	}
	var pc PolicyConfig
	require.NoError(t, json.Unmarshal([]byte(`{"head_rows": true}`), &pc))
	assert.True(t, pc.HeadRows)
	assert.False(t, DefaultPolicy().HeadRows)
	task := newBandit(4)
	cfg := DefaultGRPOConfig()
	cfg.SharePrompt, cfg.Policy.MiniBatch, cfg.Policy.HeadRows = true, cfg.Prompts*cfg.GroupSize, true
	_, err := NewGRPO(task, tinyPolicy(t, task, 1, false), cfg)
	assert.ErrorContains(t, err, "head rows")
}

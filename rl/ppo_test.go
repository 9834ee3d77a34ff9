package rl

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/model"
	"arew/tasks"
)

// sampledReward is the mean reward of 256 test episodes sampled at
// temperature 1 (what the policy does, not its mode).
func sampledReward(t *testing.T, policy *model.Model, task tasks.Task) float64 {
	t.Helper()
	cfg := DefaultEvalConfig()
	cfg.Episodes = 256
	cfg.Rollout.Sampler = SamplerConfig{Temperature: 1}
	res, err := Evaluate(policy, task, cfg)
	require.NoError(t, err)
	return res.Summary.Reward
}

// learnsBandit runs updates until the rollout reward reaches 0.9 twice in a
// row (at most maxUpdates) and checks that the sampled test reward rose
// from chance (1/V = 1/8) to above 0.8.
func learnsBandit(t *testing.T, tr Trainer, policy *model.Model, task tasks.Task, maxUpdates int) {
	t.Helper()
	defer tr.Close()
	before := sampledReward(t, policy, task)
	start := time.Now()
	steps, u, good := 0, 0, 0
	for ; u < maxUpdates && good < 2; u++ {
		m, err := tr.Update()
		require.NoError(t, err)
		steps += m.OptimSteps
		if m.Reward >= 0.9 {
			good++
		} else {
			good = 0
		}
	}
	after := sampledReward(t, policy, task)
	t.Logf("%d updates, %d optimiser steps, %v: sampled test reward %.3f → %.3f", u, steps, time.Since(start), before, after)
	assert.Less(t, before, 0.2, "chance is 1/8")
	assert.Greater(t, after, 0.8)
}

// banditPPOConfig is a small, fast PPO on the bandit.
func banditPPOConfig() PPOConfig {
	c := DefaultPPOConfig()
	c.Episodes = 32
	c.Rollout.Workers = 2
	c.Policy.MiniBatch = 16
	c.Policy.Optim.LR = 3e-3
	c.Critic.Optim.LR = 3e-3
	return c
}

func TestPPOLearnsBandit(t *testing.T) {
	task := newBandit(4)
	policy := tinyPolicy(t, task, 3, false)
	ppo, err := NewPPO(task, policy, nil, banditPPOConfig())
	require.NoError(t, err)
	learnsBandit(t, ppo, policy, task, 100)
}

func TestPPOSharedCriticLearnsBandit(t *testing.T) {
	task := newBandit(4)
	policy := tinyPolicy(t, task, 4, true)
	cfg := banditPPOConfig()
	cfg.Critic.Mode = "shared"
	ppo, err := NewPPO(task, policy, nil, cfg)
	require.NoError(t, err)
	learnsBandit(t, ppo, policy, task, 100)
}

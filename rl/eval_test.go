package rl

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
)

// Greedy evaluation draws nothing: any seed gives the same episodes.
// Sampled evaluation depends on its seed only. Both play the default
// split's (validation's) first instances and summarise them.
func TestEvaluate(t *testing.T) {
	task := flodialEasy(t)
	policy := tinyPolicy(t, task, 40, false)
	cfg := DefaultEvalConfig()
	cfg.Episodes = 6
	a, err := Evaluate(policy, task, cfg)
	require.NoError(t, err)
	cfg.Seed = 99
	b, err := Evaluate(policy, task, cfg)
	require.NoError(t, err)
	assert.Equal(t, 6, a.Summary.Episodes)
	for i := range a.Trajectories {
		assert.Equal(t, a.Trajectories[i].Tokens, b.Trajectories[i].Tokens)
		ep, err := task.NewEpisode(tasks.Val, i)
		require.NoError(t, err)
		assert.Equal(t, ep.Prompt(), a.Trajectories[i].Tokens[:len(ep.Prompt())])
	}

	cfg.Rollout.Sampler = SamplerConfig{Temperature: 1}
	s1, err := Evaluate(policy, task, cfg)
	require.NoError(t, err)
	s2, err := Evaluate(policy, task, cfg)
	require.NoError(t, err)
	cfg.Seed = 100
	s3, err := Evaluate(policy, task, cfg)
	require.NoError(t, err)
	assert.Equal(t, s1.Trajectories[0].Tokens, s2.Trajectories[0].Tokens)
	assert.NotEqual(t, s1.Trajectories[0].Tokens, s3.Trajectories[0].Tokens)

	cfg.Episodes = 0
	_, err = Evaluate(policy, task, cfg)
	assert.Error(t, err)
}

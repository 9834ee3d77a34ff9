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

// An evaluation averages the task's own counts beside the measures:
// telecom's tool errors and tool-turn ratio, each the mean of its
// episodes' (tasks.Summarize), here from an untrained policy's
// malformed and random turns.
func TestEvaluateAveragesTheTasksCounts(t *testing.T) {
	task, err := tasks.New("telecom-solo", nil)
	require.NoError(t, err)
	cfg := DefaultEvalConfig()
	cfg.Episodes = 4
	cfg.Rollout.Sampler = SamplerConfig{Temperature: 1}
	res, err := Evaluate(tinyPolicy(t, task, 41, false), task, cfg)
	require.NoError(t, err)
	require.Len(t, res.Summary.Extra, 6)
	var errs float64
	for _, tr := range res.Trajectories {
		errs += tr.Measures.Extra["tool_errors"]
	}
	assert.InDelta(t, errs/4, res.Summary.Extra["tool_errors"], 1e-12)
	assert.Nil(t, evalFloDial(t).Summary.Extra, "a task without counts of its own has none")
}

func evalFloDial(t *testing.T) EvalResult {
	task := flodialEasy(t)
	cfg := DefaultEvalConfig()
	cfg.Episodes = 2
	res, err := Evaluate(tinyPolicy(t, task, 40, false), task, cfg)
	require.NoError(t, err)
	return res
}

package rl

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
)

// SFT on the bandit expert's demonstrations drives the held-out
// teacher-forced accuracy from chance to 1 and the loss down; the trained
// policy then plays the bandit.
func TestSFTLearnsBanditDemonstrations(t *testing.T) {
	task := newBandit(4)
	expert, err := task.Scripted(tasks.PolicySpec{Kind: "strong"})
	require.NoError(t, err)
	train, err := Demonstrations(task, expert, tasks.Train, 0, 64, 1)
	require.NoError(t, err)
	test, err := Demonstrations(task, expert, tasks.Test, 0, 32, 1)
	require.NoError(t, err)
	// The answer fills its one-token turn: no EOT, as in a rollout.
	assert.Equal(t, []tasks.Token{tasks.BOS, train[0].Tokens[1], task.vocab.ID("<answer>"), train[0].Tokens[1]}, train[0].Tokens)
	policy := tinyPolicy(t, task, 21, false)
	cfg := DefaultSFTConfig()
	cfg.Epochs = 20
	cfg.MiniBatch = 16
	cfg.Optim.LR = 3e-3
	sft, err := NewSFT(policy, cfg)
	require.NoError(t, err)
	defer sft.Close()
	loss0, acc0, err := sft.Evaluate(test)
	require.NoError(t, err)
	ms, err := sft.Train(train, test, nil)
	require.NoError(t, err)
	last := ms[len(ms)-1]
	t.Logf("test loss %.3f → %.3f, accuracy %.3f → %.3f after %d steps", loss0, last.TestLoss, acc0, last.TestAccuracy, last.Steps)
	assert.Less(t, acc0, 0.5)
	assert.Equal(t, 1.0, last.TestAccuracy)
	assert.Less(t, last.TestLoss, 0.3*loss0)
	assert.Greater(t, sampledReward(t, policy, task), 0.8)
}

// SFT on flodial-easy's strong-policy demonstrations (turns of several
// tokens, EOT, observations as context) lowers the held-out loss.
func TestSFTOnFloDialLowersLoss(t *testing.T) {
	task := flodialEasy(t)
	expert, err := task.Scripted(tasks.PolicySpec{Kind: "strong"})
	require.NoError(t, err)
	train, err := Demonstrations(task, expert, tasks.Train, 0, 16, 1)
	require.NoError(t, err)
	test, err := Demonstrations(task, expert, tasks.Test, 0, 8, 1)
	require.NoError(t, err)
	cfg := DefaultSFTConfig()
	cfg.Epochs, cfg.MiniBatch = 3, 8
	sft, err := NewSFT(tinyPolicy(t, task, 22, false), cfg)
	require.NoError(t, err)
	defer sft.Close()
	loss0, _, err := sft.Evaluate(test)
	require.NoError(t, err)
	ms, err := sft.Train(train, test, nil)
	require.NoError(t, err)
	t.Logf("test loss %.3f → %.3f, accuracy %.3f", loss0, ms[2].TestLoss, ms[2].TestAccuracy)
	assert.Less(t, ms[2].TestLoss, loss0-0.3)
	assert.Equal(t, 6, ms[2].Steps)
}

// With Bucket, each minibatch runs in a graph cut to its own longest
// demonstration (rounded up): the same losses and weights as the one
// full-length graph, to float32 rounding, from graphs of several lengths.
func TestSFTBucketIsTheFullGraphCut(t *testing.T) {
	task, err := tasks.New("telecom-solo", nil) // dialogues of 22–43 tokens
	require.NoError(t, err)
	expert, err := task.Scripted(tasks.PolicySpec{Kind: "strong"})
	require.NoError(t, err)
	train, err := Demonstrations(task, expert, tasks.Train, 0, 24, 1)
	require.NoError(t, err)
	var runs [2][]SFTMetrics
	var weights [2][]float32
	var graphs [2]int
	for i, bucket := range []int{0, 4} {
		cfg := DefaultSFTConfig()
		cfg.Epochs, cfg.MiniBatch, cfg.Bucket = 2, 4, bucket
		policy := tinyPolicy(t, task, 23, false)
		sft, err := NewSFT(policy, cfg)
		require.NoError(t, err)
		runs[i], err = sft.Train(train, nil, nil)
		require.NoError(t, err)
		graphs[i] = len(sft.graphs)
		sft.Close()
		for _, p := range policy.Params.Params() {
			weights[i] = append(weights[i], p.Value.Data().([]float32)...)
		}
	}
	assert.Equal(t, 1, graphs[0])
	assert.GreaterOrEqual(t, graphs[1], 3, "minibatches cut to several lengths")
	for e := range runs[0] {
		assert.InEpsilon(t, runs[0][e].TrainLoss, runs[1][e].TrainLoss, 1e-5, "epoch %d", e)
		assert.InEpsilon(t, runs[0][e].GradNorm, runs[1][e].GradNorm, 1e-4, "epoch %d", e)
	}
	require.Equal(t, len(weights[0]), len(weights[1]))
	for k := range weights[0] {
		require.InDelta(t, weights[0][k], weights[1][k], 1e-4, "weight %d", k)
	}
}

func TestSFTRejectsBadInput(t *testing.T) {
	task := newBandit(4)
	policy := tinyPolicy(t, task, 1, false)
	for name, mut := range map[string]func(*SFTConfig){
		"epochs":  func(c *SFTConfig) { c.Epochs = 0 },
		"batch":   func(c *SFTConfig) { c.MiniBatch = 0 },
		"max_len": func(c *SFTConfig) { c.MaxLen = 99 },
		"lr":      func(c *SFTConfig) { c.Optim.LR = math.NaN() },
		"bucket":  func(c *SFTConfig) { c.Bucket = -1 },
	} {
		cfg := DefaultSFTConfig()
		mut(&cfg)
		_, err := NewSFT(policy, cfg)
		assert.Error(t, err, name)
	}
	// A trajectory longer than the graph is an error, not a silent cut.
	cfg := DefaultSFTConfig()
	cfg.MaxLen = 3
	sft, err := NewSFT(policy, cfg)
	require.NoError(t, err)
	defer sft.Close()
	expert, _ := task.Scripted(tasks.PolicySpec{Kind: "strong"})
	demo, err := Demonstrations(task, expert, tasks.Train, 0, 2, 1)
	require.NoError(t, err)
	_, err = sft.Epoch(demo)
	assert.ErrorContains(t, err, "predictions")
}

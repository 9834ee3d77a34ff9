package rl

import (
	"fmt"
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
// demonstration (rounded up), and with HeadRows its last block and head run
// at the agent's predictions only: either way, and both, the same losses,
// gradient norms and weights as the one full-length plain graph, to
// float32 rounding.
func TestSFTCutGraphsAreTheFullGraph(t *testing.T) {
	task, err := tasks.New("telecom-solo", nil) // dialogues of 22–43 tokens
	require.NoError(t, err)
	expert, err := task.Scripted(tasks.PolicySpec{Kind: "strong"})
	require.NoError(t, err)
	train, err := Demonstrations(task, expert, tasks.Train, 0, 24, 1)
	require.NoError(t, err)
	run := func(bucket int, headRows bool) ([]SFTMetrics, []float32, int) {
		cfg := DefaultSFTConfig()
		cfg.Epochs, cfg.MiniBatch, cfg.Bucket, cfg.HeadRows = 2, 4, bucket, headRows
		policy := tinyPolicy(t, task, 23, false)
		sft, err := NewSFT(policy, cfg)
		require.NoError(t, err)
		defer sft.Close()
		ms, err := sft.Train(train, nil, nil)
		require.NoError(t, err)
		var w []float32
		for _, p := range policy.Params.Params() {
			w = append(w, p.Value.Data().([]float32)...)
		}
		cut := 0 // graphs other than the plain full-length one
		for sh := range sft.graphs {
			if sh != (sftShape{T: sft.fullT}) {
				cut++
			}
		}
		return ms, w, cut
	}
	full, wFull, cut := run(0, false)
	assert.Equal(t, 0, cut)
	for _, c := range []struct {
		bucket   int
		headRows bool
		graphs   int // at least
	}{{4, false, 3}, {0, true, 1}, {4, true, 3}} {
		ms, w, graphs := run(c.bucket, c.headRows)
		name := fmt.Sprintf("bucket %d, head rows %v", c.bucket, c.headRows)
		assert.GreaterOrEqual(t, graphs, c.graphs, name)
		for e := range full {
			assert.InEpsilon(t, full[e].TrainLoss, ms[e].TrainLoss, 1e-5, "%s, epoch %d", name, e)
			assert.InEpsilon(t, full[e].GradNorm, ms[e].GradNorm, 1e-4, "%s, epoch %d", name, e)
		}
		require.Equal(t, len(wFull), len(w))
		for k := range w {
			require.InDelta(t, wFull[k], w[k], 1e-4, "%s, weight %d", name, k)
		}
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

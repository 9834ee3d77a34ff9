package rl

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
)

func TestSkipGuard(t *testing.T) {
	g := newSkipGuard(3)
	for _, skipped := range []bool{true, true, false, true, true} {
		require.NoError(t, g.record(skipped), "a taken step resets the count")
	}
	assert.ErrorIs(t, g.record(true), ErrDiverged)
	assert.Equal(t, DefaultMaxSkipped, newSkipGuard(0).max)
}

// A learning rate that overflows the weights makes every later step
// non-finite: the trainer skips them, counts them, and stops with
// ErrDiverged instead of going on.
func TestTrainersStopWhenTrainingDiverges(t *testing.T) {
	task := newBandit(4)
	t.Run("ppo", func(t *testing.T) {
		cfg := DefaultPPOConfig()
		cfg.Episodes, cfg.Policy.MiniBatch, cfg.Policy.MaxSkipped = 8, 4, 4
		cfg.Policy.Optim.LR, cfg.Policy.Optim.MaxGradNorm = 1e37, 1e30
		tr, err := NewPPO(task, tinyPolicy(t, task, 1, false), nil, cfg)
		require.NoError(t, err)
		defer tr.Close()
		var last error
		skipped := 0
		for range 20 {
			m, err := tr.Update()
			skipped += m.SkippedSteps
			if last = err; err != nil {
				break
			}
		}
		require.ErrorIs(t, last, ErrDiverged)
		assert.Positive(t, skipped, "the skipped steps were counted before it stopped")
	})
	t.Run("sft", func(t *testing.T) {
		pol, err := task.Scripted(tasks.PolicySpec{Kind: "strong"})
		require.NoError(t, err)
		var demos []*Trajectory
		for i := range 64 {
			tr, err := PlayScripted(task, pol, tasks.Train, i, rand.New(rand.NewPCG(1, uint64(i))))
			require.NoError(t, err)
			demos = append(demos, tr)
		}
		cfg := DefaultSFTConfig()
		cfg.MiniBatch, cfg.MaxSkipped, cfg.MaxLen = 4, 3, task.MaxTokens()
		cfg.Optim.LR, cfg.Optim.MaxGradNorm = 1e37, 1e30
		sft, err := NewSFT(tinyPolicy(t, task, 1, false), cfg)
		require.NoError(t, err)
		defer sft.Close()
		var last error
		for range 5 {
			if _, last = sft.Epoch(demos); last != nil {
				break
			}
		}
		require.Error(t, last)
		assert.True(t, errors.Is(last, ErrDiverged), "%v", last)
	})
}

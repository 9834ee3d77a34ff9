package rl

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
)

// The learner writes, turn by turn from the token history, exactly the
// turns a greedy rollout of the same policy writes: its incremental
// decoding (each token read once, the last token of a turn read with the
// reply) is the rollout's.
func TestLearnerMatchesRollout(t *testing.T) {
	task, err := tasks.New("pe-f-d6", json.RawMessage(`{"Echo": true}`))
	require.NoError(t, err)
	policy := tinyPolicy(t, task, 5, false)
	greedy := SamplerConfig{Greedy: true}
	res, err := Evaluate(policy, task, EvalConfig{Split: tasks.Val, Episodes: 6, Seed: 1,
		Rollout: RolloutConfig{Slots: 4, Sampler: greedy}})
	require.NoError(t, err)
	l, err := newLearner(policy, task, greedy)
	require.NoError(t, err)
	turns := 0
	for i, tr := range res.Trajectories {
		require.False(t, tr.Truncated)
		ep, err := task.NewEpisode(tasks.Val, i)
		require.NoError(t, err)
		require.NoError(t, l.reset())
		for k, st := range tr.Steps {
			action, err := l.act(ep, ep.Next(), tr.Tokens[:st.Start], nil)
			require.NoError(t, err)
			want := tr.Tokens[st.Start:st.End]
			if want[len(want)-1] == tasks.EOT {
				want = want[:len(want)-1]
			}
			require.Equal(t, want, action, "episode %d, turn %d", i, k)
			_, _, err = ep.Step(action)
			require.NoError(t, err)
			turns++
		}
	}
	assert.Greater(t, turns, 12)
}

// daggerBase is a one-source base on PE-F D=6 with the echo, with 2 DAgger
// rounds of 24 demonstrations, the learner sampling at temperature 1.
func daggerBase() BaseConfig {
	sft := DefaultSFTConfig()
	sft.Epochs, sft.MiniBatch = 1, 8
	return BaseConfig{Task: "pe-f-d6", Preset: "tiny", Seed: 4, SFT: sft,
		Sources: []DemoSource{{Name: "echo", TaskConfig: json.RawMessage(`{"Echo": true}`),
			Policy: tasks.PolicySpec{Kind: "strong"}, Demos: 16, TestDemos: 4}},
		DAgger: &DAggerConfig{Rounds: 2, Demos: 24, Share: 0.4, Epochs: 2, Sampler: SamplerConfig{Temperature: 1}}}
}

// A DAgger round plays new train instances with the learner on about
// Share of the turns, of both kinds, as context; every other turn is the
// strong policy's at the state the learner's turns led to; each round
// trains on the last source and every round so far; the build is
// deterministic.
func TestBaseDAgger(t *testing.T) {
	build := func() (*Base, []BaseEpoch) {
		b, err := NewBase(context.Background(), daggerBase())
		require.NoError(t, err)
		t.Cleanup(b.Close)
		var epochs []BaseEpoch
		for range b.Epochs() {
			e, err := b.Epoch(t.Context())
			require.NoError(t, err)
			epochs = append(epochs, e)
		}
		return b, epochs
	}
	b, epochs := build()
	require.Equal(t, 5, b.Epochs(), "1 SFT epoch, then 2 rounds of 2")
	for i, e := range epochs {
		if i == 1 || i == 3 {
			require.NotNil(t, e.DAgger, "epoch %d starts a round", i+1)
			assert.Equal(t, (i+1)/2, e.DAgger.Round)
			assert.Equal(t, 24, e.DAgger.Demos)
		} else {
			assert.Nil(t, e.DAgger, "epoch %d", i+1)
		}
	}
	// Optimiser steps: 16 demonstrations, then 40 twice, then 64 twice, in
	// minibatches of 8.
	var steps []int
	for _, e := range epochs {
		steps = append(steps, e.Steps)
	}
	assert.Equal(t, []int{2, 7, 12, 20, 28}, steps)
	assert.Equal(t, 28, b.Config.Steps(), "the steps a build takes, counted from its config")
	require.Len(t, b.dagger, 48)
	assert.Len(t, b.epochData(5), 64)

	strong, err := b.Sources[0].Task.Scripted(tasks.PolicySpec{Kind: "strong"})
	require.NoError(t, err)
	var learnt [2]int
	expert := 0
	for k, tr := range b.dagger {
		require.NoError(t, tr.Validate())
		got := replayNoisy(t, b.Sources[0].Task, strong, tr, tasks.Train, 16+k)
		learnt[tasks.AS] += got[tasks.AS]
		learnt[tasks.BT] += got[tasks.BT]
		expert += len(tr.Steps)
	}
	assert.Equal(t, epochs[1].DAgger.LearnerTurns+epochs[3].DAgger.LearnerTurns, learnt[tasks.AS]+learnt[tasks.BT])
	assert.Equal(t, epochs[1].DAgger.ExpertTurns+epochs[3].DAgger.ExpertTurns, expert)
	assert.Positive(t, learnt[tasks.AS], "the learner asks")
	assert.Positive(t, learnt[tasks.BT], "the learner states beliefs")
	n := learnt[tasks.AS] + learnt[tasks.BT] + expert
	share := float64(learnt[tasks.AS]+learnt[tasks.BT]) / float64(n)
	assert.InDelta(t, 0.4, share, 4*math.Sqrt(0.4*0.6/float64(n)), "%d of %d turns", n-expert, n)

	again, epochs2 := build()
	assert.Equal(t, epochs[3].DAgger.LearnerTurns, epochs2[3].DAgger.LearnerTurns)
	for k := range b.dagger {
		require.True(t, slices.Equal(b.dagger[k].Tokens, again.dagger[k].Tokens), "demonstration %d", k)
	}
	assert.Equal(t, b.Policy.Params.Params()[0].Data(), again.Policy.Params.Params()[0].Data())
}

func TestDAggerConfigErrors(t *testing.T) {
	for name, mutate := range map[string]func(*BaseConfig){
		"no rounds":      func(c *BaseConfig) { c.DAgger.Rounds = 0 },
		"no demos":       func(c *BaseConfig) { c.DAgger.Demos = 0 },
		"no epochs":      func(c *BaseConfig) { c.DAgger.Epochs = 0 },
		"share 1":        func(c *BaseConfig) { c.DAgger.Share = 1 },
		"share NaN":      func(c *BaseConfig) { c.DAgger.Share = math.NaN() },
		"bad sampler":    func(c *BaseConfig) { c.DAgger.Sampler = SamplerConfig{Temperature: -1} },
		"unknown source": func(c *BaseConfig) { c.DAgger.Source = "careful" },
	} {
		c := daggerBase()
		mutate(&c)
		assert.Error(t, c.Validate(), name)
	}
	assert.NoError(t, daggerBase().Validate())
}

// The learner refuses a history it has already read past (a caller that
// forgot to reset it between episodes).
func TestLearnerNeedsNewTokens(t *testing.T) {
	task, err := tasks.New("pe-f-d6", nil)
	require.NoError(t, err)
	policy := tinyPolicy(t, task, 5, false)
	l, err := newLearner(policy, task, SamplerConfig{Temperature: 1})
	require.NoError(t, err)
	ep, err := task.NewEpisode(tasks.Val, 0)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(1, 2))
	_, err = l.act(ep, ep.Next(), ep.Prompt(), rng)
	require.NoError(t, err)
	_, err = l.act(ep, ep.Next(), ep.Prompt(), rng)
	assert.ErrorContains(t, err, "has read")
}

// DAgger on a named source of a two-source base (a locked base's careful
// source, not the last): its rounds play that source's task variant and
// scripted policy, and train beside what the last SFT epoch trained on,
// both sources here.
func TestBaseDAggerNamedSource(t *testing.T) {
	c := daggerBase()
	c.Sources = []DemoSource{
		{Name: "careful", TaskConfig: json.RawMessage(`{"Echo": true, "Style": "careful"}`), Policy: tasks.PolicySpec{Kind: "strong"}, Demos: 16, TestDemos: 4},
		{Name: "hasty", TaskConfig: json.RawMessage(`{"Echo": true, "Style": "hasty"}`), Policy: tasks.PolicySpec{Kind: "locked"}, Demos: 16, TestDemos: 4},
	}
	c.DAgger = &DAggerConfig{Source: "careful", Rounds: 1, Demos: 12, Share: 0.5, Epochs: 1, Sampler: SamplerConfig{Temperature: 1}}
	b, err := NewBase(context.Background(), c)
	require.NoError(t, err)
	defer b.Close()
	for range b.Epochs() {
		_, err := b.Epoch(t.Context())
		require.NoError(t, err)
	}
	require.Len(t, b.dagger, 12)
	assert.Len(t, b.epochData(2), 16+16+12)
	careful := b.Sources[0]
	for k, tr := range b.dagger {
		ep, err := careful.Task.NewEpisode(tasks.Train, 32+k)
		require.NoError(t, err)
		require.Equal(t, ep.Prompt(), tr.Tokens[:len(ep.Prompt())], "the careful source's variant, instance %d", 32+k)
		replayNoisy(t, careful.Task, careful.Policy, tr, tasks.Train, 32+k)
	}
}

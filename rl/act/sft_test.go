package act

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/model"
	"arew/rl"
	"arew/tasks"
	"arew/tasks/textworld"
)

func TestDemonstrationLayout(t *testing.T) {
	tr := Demonstration([]tasks.Token{tasks.BOS, 7, 8}, []tasks.Token{9, 10})
	require.NoError(t, tr.Validate())
	assert.Equal(t, []int32{tasks.BOS, 7, 8, 9, 10, tasks.EOT}, tr.Tokens)
	assert.Equal(t, []bool{false, false, false, true, true, true}, tr.Agent)
	assert.Equal(t, []rl.Step{{Start: 3, End: 6, Kind: tasks.AS, Final: true}}, tr.Steps)
}

func TestILAndReflectionData(t *testing.T) {
	f := newFixture(t)
	v := f.env.Vocab
	il := ILData(v, f.pairs)
	require.Len(t, il, len(f.pairs))
	for i, tr := range il {
		require.NoError(t, tr.Validate())
		prompt := f.pairs[i].State.Tokens(v)
		assert.Equal(t, prompt, tr.Tokens[:len(prompt)], "context = State.Tokens (k = 2)")
		assert.Equal(t, append(append([]tasks.Token(nil), f.pairs[i].Expert...), tasks.EOT), tr.Tokens[len(prompt):])
	}
	ee := ReflectionData(v, f.critic)
	require.Len(t, ee, len(f.critic))
	c := f.critic[0]
	tr := ee[0]
	require.NoError(t, tr.Validate())
	state := c.State.Tokens(v)
	start := len(state) - 1
	assert.Equal(t, state[:start], tr.Tokens[:start], "the state without its <act>")
	want := textworld.Reflection(v, c.Expert, c.ExpertObs, c.Alt, c.AltObs)
	want = append(append(append(want, v.ID("<act>")), c.Expert...), tasks.EOT)
	assert.Equal(t, want, tr.Tokens[start:])
	assert.True(t, tr.Agent[start] && !tr.Agent[start-1], "the reflection is learnt, the state is context")
}

func TestCloneIsIndependent(t *testing.T) {
	mc, err := model.NewConfig("tiny", 20, 16)
	require.NoError(t, err)
	m, err := model.New(mc, 3)
	require.NoError(t, err)
	c, err := m.Clone()
	require.NoError(t, err)
	a, b := m.Params.Params()[0].Data(), c.Params.Params()[0].Data()
	assert.Equal(t, a, b)
	b[0]++
	assert.NotEqual(t, a[0], b[0])
}

func TestInitialPolicyAndSFTErrors(t *testing.T) {
	f := newFixture(t)
	cfg := rl.DefaultSFTConfig()
	cfg.Epochs = 1
	_, _, err := InitialPolicy(context.Background(), f.env.Vocab, "tiny", 512, f.pairs, 0, ChoiceSlot, cfg, 1)
	assert.ErrorContains(t, err, "share")
	_, _, err = InitialPolicy(context.Background(), f.env.Vocab, "huge", 512, f.pairs, 0.5, ChoiceSlot, cfg, 1)
	assert.ErrorContains(t, err, "preset")
	_, _, err = InitialPolicy(context.Background(), f.env.Vocab, "tiny", 64, f.pairs, 0.5, ChoiceSlot, cfg, 1)
	assert.ErrorContains(t, err, "exceeds the context")
	m, ms, err := InitialPolicy(context.Background(), f.env.Vocab, "tiny", 512, f.pairs, 0.5, ChoiceSlot, cfg, 1)
	require.NoError(t, err)
	assert.Len(t, ms, 1)
	assert.Equal(t, 512, m.Config.Context)
	_, _, err = TrainSFT(context.Background(), m, nil, cfg)
	assert.Error(t, err)
}

// TestEarlyExperienceMatchesILSteps: Early Experience takes exactly IL's
// optimiser steps (per epoch and in all) although its data, the pairs
// and a reflection per critic example, is larger; each epoch passes over
// as many examples as IL's, drawn in turn from the whole mix.
func TestEarlyExperienceMatchesILSteps(t *testing.T) {
	f := newFixture(t)
	v := f.env.Vocab
	cfg := rl.DefaultSFTConfig()
	cfg.Epochs, cfg.MiniBatch = 3, 4
	critic := append(append(slices.Clone(f.critic), f.critic...), f.critic...) // three reflections per state
	m := tinyModel(t, v.Size(), LongestTrajectory(ReflectionData(v, critic)))
	_, il, err := TrainIL(context.Background(), m, v, f.pairs, cfg)
	require.NoError(t, err)
	_, ee, err := TrainEarlyExperience(context.Background(), m, v, f.pairs, critic, cfg)
	require.NoError(t, err)
	require.Len(t, ee, len(il))
	for e := range il {
		assert.Equal(t, il[e].Steps, ee[e].Steps, "epoch %d", e)
	}
	perEpoch := (len(f.pairs) + cfg.MiniBatch - 1) / cfg.MiniBatch
	assert.Equal(t, cfg.Epochs*perEpoch, ee[len(ee)-1].Steps)
	mix := len(f.pairs) + len(critic)
	assert.Greater(t, cfg.Epochs*((mix+cfg.MiniBatch-1)/cfg.MiniBatch), ee[len(ee)-1].Steps,
		"epochs over the whole mix would take more steps")
	_, _, err = TrainSFTSteps(context.Background(), m, ILData(v, f.pairs), 0, cfg)
	assert.Error(t, err)
}

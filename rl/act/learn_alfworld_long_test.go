//go:build long

package act

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/model"
	"arew/rl"
	"arew/tasks"
	"arew/tasks/textworld"
)

// alfworldChoices is the real ALFWorld choice task at the size the ACT
// stage was tuned at (docs/act.md §7): π_θ0 (tiny, a quarter of 60 games'
// expert pairs, act-table1's π_θ0 settings), D_critic on those 60 training
// games and held-out critic examples on 20 test games. act-table1 itself
// now trains on 200 games (§8); 60 keep these checks at about two
// minutes. It is built once and shared by the tests below: none of them
// changes π_θ0 or the data (TrainACT and TrainSFT train copies).
func alfworldChoices(t *testing.T) (*Env, *model.Model, []CriticExample, []CriticExample) {
	t.Helper()
	alfworldOnce.Do(func() { alfworldFix, alfworldErr = buildALFWorldChoices() })
	require.NoError(t, alfworldErr)
	return alfworldFix.env, alfworldFix.pi0, alfworldFix.train, alfworldFix.held
}

type choiceFixture struct {
	env         *Env
	pi0         *model.Model
	train, held []CriticExample
}

var (
	alfworldOnce sync.Once
	alfworldFix  choiceFixture
	alfworldErr  error
)

func buildALFWorldChoices() (f choiceFixture, err error) {
	cfg := tableRun("alfworld", 0)
	cfg.Games = 60
	cfg.Seed, cfg.Collect.Seed = 1, 1
	if f.env, err = NewEnv("alfworld", nil); err != nil {
		return f, err
	}
	pairs, err := f.env.ExpertPairs(textworld.Train, 0, cfg.Games, textworld.History)
	if err != nil {
		return f, err
	}
	ctx := AutoContext(f.env, pairs, cfg.Collect.MaxAction)
	if f.pi0, _, err = InitialPolicy(context.Background(), f.env.Vocab, cfg.Preset, ctx, pairs, cfg.InitShare, ChoiceSlot, cfg.Init, cfg.Seed); err != nil {
		return f, err
	}
	// Sampled free, as when the choice was tuned (docs/act.md §7).
	if f.train, _, err = CriticData(f.pi0, f.env, DecodeFree, textworld.Train, 0, cfg.Games, cfg.Collect); err != nil {
		return f, err
	}
	f.held, _, err = CriticData(f.pi0, f.env, DecodeFree, textworld.Test, 0, cfg.HeldOut, cfg.Collect)
	return f, err
}

// TestSupervisedALFWorldChoiceGeneralises: the capability check. A fresh
// tiny model trained by SFT on the correct choices of the ALFWorld critic
// data judges held-out states well above chance. With the candidates
// after the state (the first format) the same check stayed at 0.49.
func TestSupervisedALFWorldChoiceGeneralises(t *testing.T) {
	env, pi0, train, held := alfworldChoices(t)
	v := env.Vocab
	var demos []*rl.Trajectory
	for _, c := range train {
		p, slot := ChoiceSlot.Prompt(v, c)
		answer := v.ID("1")
		if slot == 2 {
			answer = v.ID("2")
		}
		demos = append(demos, Demonstration(p, []tasks.Token{answer}))
	}
	fresh := tinyModel(t, v.Size(), pi0.Config.Context)
	cfg := rl.DefaultSFTConfig()
	cfg.Epochs, cfg.Optim.LR = 6, 3e-3
	m, _, err := TrainSFT(context.Background(), fresh, demos, cfg)
	require.NoError(t, err)
	acc, bad, err := ChoiceAccuracy(m, v, ChoiceSlot, held)
	require.NoError(t, err)
	t.Logf("%d training and %d held-out choices; held-out accuracy %.3f, malformed %.3f", len(train), len(held), acc, bad)
	assert.Greater(t, acc, 0.65)
}

// TestACTLearnsTheALFWorldChoice: the ACT stage itself, GRPO from π_θ0 on
// the real critic data, at act-table1's stage settings with the slot
// answer and no KL anchor: the sampled
// accuracy climbs and the greedy held-out accuracy ends well above π_θ0's
// chance.
func TestACTLearnsTheALFWorldChoice(t *testing.T) {
	env, pi0, train, held := alfworldChoices(t)
	before, _, err := ChoiceAccuracy(pi0, env.Vocab, ChoiceSlot, held)
	require.NoError(t, err)
	stage := tableRun("alfworld", 100).ACT
	stage.GRPO.Rollout.Workers = 1
	// The stage as this test measured it (the slot answer, no KL anchor):
	// the anchored stage in the action channel, today's default, is
	// TestCriticFormatsOnALFWorld's (docs/act.md §12).
	stage.GRPO.Policy.KLCoef = 0
	m, ms, err := TrainACT(context.Background(), pi0, env, ChoiceSlot, train, stage)
	require.NoError(t, err)
	after, _, err := ChoiceAccuracy(m, env.Vocab, ChoiceSlot, held)
	require.NoError(t, err)
	acc := make([]float64, len(ms))
	for i, mt := range ms {
		acc[i] = mt.Success
	}
	first, last := tenth(acc, false), tenth(acc, true)
	t.Logf("held-out choice accuracy %.3f → %.3f; sampled %.3f → %.3f (first and last tenth of %d updates)", before, after, first, last, len(ms))
	assert.InDelta(t, 0.5, before, 0.1, "π_θ0 judges at chance")
	assert.Greater(t, last, first+0.1)
	assert.Greater(t, after, 0.58)
}

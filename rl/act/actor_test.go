package act

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/model"
	"arew/tasks"
	"arew/tasks/textworld"
)

// seqLogp is log π(a, EOT | prompt) under m's plain softmax.
func seqLogp(t *testing.T, m *model.Model, prompt, a []tasks.Token) float64 {
	t.Helper()
	d, err := m.NewDecoder(1)
	require.NoError(t, err)
	logits, err := d.Prefill(0, prompt)
	require.NoError(t, err)
	s := 0.0
	for i, tok := range append(append([]tasks.Token{}, a...), tasks.EOT) {
		mx := math.Inf(-1)
		for _, x := range logits {
			mx = math.Max(mx, float64(x))
		}
		z := 0.0
		for _, x := range logits {
			z += math.Exp(float64(x) - mx)
		}
		s += float64(logits[tok]) - mx - math.Log(z)
		if i < len(a) {
			if logits, err = d.Step([]int{0}, []int32{tok}); err != nil {
				require.NoError(t, err)
			}
		}
	}
	return s
}

// actorSteps runs n of the term's steps (with data from start) on a copy
// of m and returns it.
func actorSteps(t *testing.T, a ActorTerm, f fixture, start, m *model.Model, n int, repeat int) *model.Model {
	t.Helper()
	var pairs []textworld.Pair
	for range repeat {
		pairs = append(pairs, f.pairs...)
	}
	data, err := ActorData(a, f.env, DecodeTrie, start, pairs, DefaultCollect().MaxAction, rand.New(rand.NewPCG(7, 8)))
	require.NoError(t, err)
	out, err := m.Clone()
	require.NoError(t, err)
	s, err := newActorStepper(a, out, data, 1e-3, 3)
	require.NoError(t, err)
	defer s.Close()
	for range n {
		loss, err := s.step()
		require.NoError(t, err)
		require.False(t, math.IsNaN(loss))
	}
	return out
}

// TestACTStageActorTerm: with the expert term the ACT stage raises the
// actor's log-probability of the expert's actions at the fixture's states,
// where the stage without it does not move it as far; Each sees every
// update and the term's loss (NaN without one); the RL stage and a config
// refuse the term where it does not belong.
func TestACTStageActorTerm(t *testing.T) {
	f, data, m := actionChoices(t)
	v := f.env.Vocab
	stage := DefaultConfig().ACT
	stage.Updates, stage.GRPO.Prompts, stage.GRPO.GroupSize = 4, 4, 4
	stage.GRPO.Policy.MiniBatch = 16
	stage.GRPO.Rollout.Workers = 1
	expertLogp := func(mm *model.Model) float64 {
		s := 0.0
		for _, p := range f.pairs {
			s += seqLogp(t, mm, p.State.Tokens(v), p.Expert)
		}
		return s / float64(len(f.pairs))
	}
	x := ACTExtras{Pairs: f.pairs, Decoding: DecodeTrie, MaxAction: DefaultCollect().MaxAction}
	var losses []float64
	x.Each = func(u int, _ *model.Model, loss float64) error {
		assert.Equal(t, len(losses)+1, u)
		losses = append(losses, loss)
		return nil
	}
	plain, _, err := TrainACTWith(context.Background(), m, f.env, ChoiceAction, data, stage, x)
	require.NoError(t, err)
	require.Len(t, losses, 4)
	assert.True(t, math.IsNaN(losses[0]), "no actor term, no loss")

	losses = nil
	stage.Actor = &ActorTerm{Source: ActorExpert, Steps: 2, MiniBatch: 8}
	mixed, _, err := TrainACTWith(context.Background(), m, f.env, ChoiceAction, data, stage, x)
	require.NoError(t, err)
	require.Len(t, losses, 4)
	assert.Less(t, losses[3], losses[0], "the expert term's loss falls")
	l0, lp, lm := expertLogp(m), expertLogp(plain), expertLogp(mixed)
	t.Logf("mean log π(expert | state): start %.3f, ACT %.3f, ACT + expert term %.3f", l0, lp, lm)
	assert.Greater(t, lm, l0+0.5)
	assert.Greater(t, lm, lp+0.5)

	_, _, err = TrainACT(context.Background(), m, f.env, ChoiceAction, data, stage)
	assert.ErrorContains(t, err, "needs the expert pairs")
	_, _, err = TrainRL(context.Background(), m, f.env, DecodeTrie, f.pairs, DefaultCollect().MaxAction, stage)
	assert.ErrorContains(t, err, "ACT stage's only")
	cfg := DefaultConfig()
	cfg.ACT.Actor = &ActorTerm{Source: "nope", Steps: 1, MiniBatch: 1}
	assert.ErrorContains(t, cfg.Validate(), "source")
	cfg.ACT.Actor = nil
	cfg.RL.Actor = &ActorTerm{Source: ActorExpert, Steps: 1, MiniBatch: 1}
	assert.ErrorContains(t, cfg.Validate(), "ACT stage's only")
}

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

// admissibleKL is the mean over the pairs' states of KL(q_ref ‖ q_m), q
// each model's distribution over the state's listed commands
// (renormalised sequence probabilities): the actor's distribution where
// the trie lets it act.
func admissibleKL(t *testing.T, ref, m *model.Model, v *tasks.Vocab, pairs []textworld.Pair) float64 {
	t.Helper()
	dist := func(mm *model.Model, p textworld.Pair) []float64 {
		lp := make([]float64, len(p.State.Admissible))
		mx := math.Inf(-1)
		for i, a := range p.State.Admissible {
			lp[i] = seqLogp(t, mm, p.State.Tokens(v), a)
			mx = math.Max(mx, lp[i])
		}
		z := 0.0
		for i := range lp {
			lp[i] = math.Exp(lp[i] - mx)
			z += lp[i]
		}
		for i := range lp {
			lp[i] /= z
		}
		return lp
	}
	kl := 0.0
	for _, p := range pairs {
		q0, q1 := dist(ref, p), dist(m, p)
		for i := range q0 {
			kl += q0[i] * (math.Log(q0[i]) - math.Log(q1[i]))
		}
	}
	return kl / float64(len(pairs))
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

// TestActorAnchorHoldsAndPullsBack: the anchor term's data are the start
// policy's own samples, so at π_θ = π_start its steps (many samples per
// state) leave the actor's distribution over the listed commands nearly
// where it was, a small fraction of what the same steps of the expert
// term move it; and from a model the expert term has pushed away, the
// anchor's steps bring it most of the way back.
func TestActorAnchorHoldsAndPullsBack(t *testing.T) {
	f, _, m := actionChoices(t)
	v := f.env.Vocab
	expert := ActorTerm{Source: ActorExpert, Steps: 1, MiniBatch: 16, LR: 1e-2}
	anchor := ActorTerm{Source: ActorAnchor, Steps: 1, MiniBatch: 16, LR: 1e-2}

	pushed := actorSteps(t, expert, f, m, m, 30, 8)
	klPushed := admissibleKL(t, m, pushed, v, f.pairs)
	held := actorSteps(t, anchor, f, m, m, 30, 8)
	klHeld := admissibleKL(t, m, held, v, f.pairs)
	t.Logf("KL(start ‖ ·) over the listed commands: expert steps %.4f, anchor steps %.4f", klPushed, klHeld)
	require.Greater(t, klPushed, 0.05, "the expert term moves the actor")
	assert.Less(t, klHeld, klPushed/5, "at the start the anchor's expected gradient is zero")

	back := actorSteps(t, anchor, f, m, pushed, 30, 8)
	klBack := admissibleKL(t, m, back, v, f.pairs)
	t.Logf("after the anchor's steps from the pushed model: %.4f", klBack)
	assert.Less(t, klBack, klPushed/2, "the anchor pulls the actor back to the start")

	// The greedy term's targets are the start's greedy actions, which the
	// pushed model has left and its steps restore.
	greedy := ActorTerm{Source: ActorGreedy, Steps: 1, MiniBatch: 16, LR: 1e-2}
	data, err := ActorData(greedy, f.env, DecodeTrie, m, f.pairs, DefaultCollect().MaxAction, nil)
	require.NoError(t, err)
	own := make([]textworld.Pair, len(data))
	for i, tr := range data {
		k := tr.Steps[0].Start
		own[i] = textworld.Pair{State: f.pairs[i].State, Expert: tr.Tokens[k : len(tr.Tokens)-1]}
	}
	agree := func(mm *model.Model) float64 {
		acc, err := NextActionAccuracy(mm, f.env, DecodeTrie, own, DefaultCollect().MaxAction)
		require.NoError(t, err)
		return acc
	}
	require.Equal(t, 1.0, agree(m), "the targets are the start's greedy actions")
	restored := actorSteps(t, greedy, f, m, pushed, 30, 8)
	t.Logf("agreement with the start's greedy actions: pushed %.2f, after the greedy term %.2f", agree(pushed), agree(restored))
	assert.Less(t, agree(pushed), 0.8)
	assert.Greater(t, agree(restored), agree(pushed)+0.2)
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

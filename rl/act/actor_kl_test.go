package act

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/model"
	"arew/tasks"
	"arew/tasks/textworld"
)

// plainTrieKL is the reference loop for the KL anchor: at each state, every
// listed command that fits (deduplicated), log π(a|s) as the sum over
// a, EOT of each token's log-probability under the trie decoder's
// renormalised softmax (MaskedLogSoftmax on the decoder's logits, one
// token at a time), then KL(π_ref ‖ π_m) = Σ_a p_a (log p_a − log q_a).
// It returns the mean over the states and π_ref's total mass (1 if the
// tree normalises).
func plainTrieKL(t *testing.T, ref, m *model.Model, env *Env, states []textworld.State, maxAction int) (kl, mass float64) {
	t.Helper()
	logq := func(mm *model.Model, s textworld.State, trie Constraint, a []tasks.Token) float64 {
		d, err := mm.NewDecoder(1)
		require.NoError(t, err)
		logits, err := d.Prefill(0, s.Tokens(env.Vocab))
		require.NoError(t, err)
		seq := append(append([]tasks.Token{}, a...), tasks.EOT)
		sum := 0.0
		for j, tok := range seq {
			sum += MaskedLogSoftmax(logits, trie.Next(seq[:j]))[tok]
			if j+1 < len(seq) {
				logits, err = d.Step([]int{0}, []int32{tok})
				require.NoError(t, err)
			}
		}
		return sum
	}
	for _, s := range states {
		trie := env.Constraint(DecodeTrie, s, maxAction)
		seen := map[string]bool{}
		for _, a := range s.Admissible {
			key := fmt.Sprint(a)
			if len(a) == 0 || len(a) > maxAction || seen[key] {
				continue
			}
			seen[key] = true
			lp, lq := logq(ref, s, trie, a), logq(m, s, trie, a)
			kl += math.Exp(lp) * (lp - lq)
			mass += math.Exp(lp)
		}
	}
	return kl / float64(len(states)), mass / float64(len(states))
}

// TestActorKLMatchesPlainLoop: the KL anchor's value on a batch is β times
// the reference loop's mean KL over the batch's states, exactly zero at
// the start, and its gradient along a random direction of the weights is
// the reference loop's central difference along it.
func TestActorKLMatchesPlainLoop(t *testing.T) {
	f, _, m := actionChoices(t)
	maxAction := DefaultCollect().MaxAction
	const beta = 0.5
	states, err := klStates(f.env, f.pairs, maxAction)
	require.NoError(t, err)
	require.Len(t, states, len(f.pairs), "every fixture state lists a command")
	moved := actorSteps(t, ActorTerm{Source: ActorExpert, Steps: 1, MiniBatch: 16, LR: 1e-2}, f, m, m, 10, 1)

	// At the start: π_start is m itself, so the term is zero.
	start, err := m.Clone()
	require.NoError(t, err)
	k0, err := newActorKL(start, append([]klState{}, states...), beta, 4, 5)
	require.NoError(t, err)
	defer k0.Close()
	start.Params.ZeroGrad()
	v0, err := k0.Accumulate()
	require.NoError(t, err)
	assert.InDelta(t, 0, v0, 1e-5, "KL(π_start ‖ π_start)")

	// The moved model against m's π_start: build the term on the moved
	// model, then give it m's reference distributions.
	k, err := newActorKL(moved, append([]klState{}, states...), beta, 4, 5)
	require.NoError(t, err)
	defer k.Close()
	for i := range k.states {
		k.states[i].ref = k0.states[i].ref
	}
	moved.Params.ZeroGrad()
	v, err := k.Accumulate()
	require.NoError(t, err)
	batch := make([]textworld.State, len(k.batch))
	for p, i := range k.batch {
		batch[p] = f.pairs[i].State
	}
	ref, mass := plainTrieKL(t, m, moved, f.env, batch, maxAction)
	t.Logf("β·KL on a batch of %d: term %.6f, reference loop %.6f (π_start's mass %.6f)", len(batch), v, beta*ref, mass)
	require.Greater(t, ref, 0.01, "the expert steps moved the actor")
	assert.InDelta(t, 1, mass, 1e-4, "the tree normalises π over the listed commands")
	assert.InDelta(t, beta*ref, v, 1e-4*math.Max(1, beta*ref))
	assert.InDelta(t, 0, k.Mean()-ref, 1e-4*math.Max(1, ref), "Mean is the KL without β")
	assert.True(t, math.IsNaN(k.Mean()), "no step since the last Mean")

	// The gradient along a random direction d against the reference loop's
	// central difference (KL(θ + εd) − KL(θ − εd)) / 2ε.
	rng := rand.New(rand.NewPCG(1, 2))
	params := moved.Params.Params()
	dir := make([][]float32, len(params))
	saved := make([][]float32, len(params))
	dot := 0.0
	for i, p := range params {
		dir[i] = make([]float32, p.Size())
		saved[i] = append([]float32{}, p.Data()...)
		for j := range dir[i] {
			dir[i][j] = float32(rng.NormFloat64())
			dot += float64(p.Grad[j]) * float64(dir[i][j])
		}
	}
	const eps = 1e-3
	shift := func(s float64) {
		for i, p := range params {
			for j := range p.Data() {
				p.Data()[j] = saved[i][j] + float32(s)*dir[i][j]
			}
		}
	}
	shift(eps)
	plus, _ := plainTrieKL(t, m, moved, f.env, batch, maxAction)
	shift(-eps)
	minus, _ := plainTrieKL(t, m, moved, f.env, batch, maxAction)
	shift(0)
	fd := beta * (plus - minus) / (2 * eps)
	t.Logf("directional derivative: term %.6f, reference loop %.6f", dot, fd)
	require.Greater(t, math.Abs(fd), 1e-3)
	assert.InDelta(t, fd, dot, 0.02*math.Abs(fd))

	// The start's gradient is zero too (Σ_a π ∇log π = 0).
	norm0 := 0.0
	for _, p := range start.Params.Params() {
		for _, g := range p.Grad {
			norm0 += float64(g) * float64(g)
		}
	}
	assert.Less(t, math.Sqrt(norm0), 1e-3*math.Abs(dot), "the gradient at π_θ = π_start")
}

// TestActorKLValidated: β must be positive and finite, the batch at least
// one state, and the KL anchor takes no steps or rate of its own; β
// belongs to it alone; its examples are not SFT data; the stage refuses it
// under a decoding other than the trie.
func TestActorKLValidated(t *testing.T) {
	ok := ActorTerm{Source: ActorKL, Beta: 1, MiniBatch: 16}
	require.NoError(t, ok.Validate())
	for name, a := range map[string]ActorTerm{
		"beta < 0":      {Source: ActorKL, Beta: -1, MiniBatch: 16},
		"beta 0":        {Source: ActorKL, MiniBatch: 16},
		"beta NaN":      {Source: ActorKL, Beta: math.NaN(), MiniBatch: 16},
		"beta +Inf":     {Source: ActorKL, Beta: math.Inf(1), MiniBatch: 16},
		"beta too big":  {Source: ActorKL, Beta: 1e300, MiniBatch: 16},
		"no batch":      {Source: ActorKL, Beta: 1},
		"steps":         {Source: ActorKL, Beta: 1, MiniBatch: 16, Steps: 1},
		"lr":            {Source: ActorKL, Beta: 1, MiniBatch: 16, LR: 1e-3},
		"beta w/ sft":   {Source: ActorAnchor, Beta: 1, Steps: 1, MiniBatch: 16},
		"unknown":       {Source: "kl2", Beta: 1, MiniBatch: 16},
		"negative beta": {Source: ActorExpert, Beta: -0.1, Steps: 1, MiniBatch: 16},
	} {
		assert.Error(t, a.Validate(), name)
	}
	cfg := DefaultConfig()
	cfg.ACT.Actor = &ActorTerm{Source: ActorKL, Beta: -1, MiniBatch: 16}
	assert.ErrorContains(t, cfg.Validate(), "beta")

	f, data, m := actionChoices(t)
	_, err := ActorData(ok, f.env, DecodeTrie, m, f.pairs, DefaultCollect().MaxAction, nil)
	assert.Error(t, err)
	stage := DefaultConfig().ACT
	stage.Updates = 1
	stage.Actor = &ok
	x := ACTExtras{Pairs: f.pairs, Decoding: DecodeGrammar, MaxAction: DefaultCollect().MaxAction}
	_, _, err = TrainACTWith(context.Background(), m, f.env, ChoiceAction, data, stage, x)
	assert.ErrorContains(t, err, "trie")
}

// TestACTStageKLAnchor: with the KL anchor the ACT stage reports its KL
// after every update (0 ≤ KL, finite), and its actor ends nearer the start
// over the listed commands than the same stage's without it.
func TestACTStageKLAnchor(t *testing.T) {
	f, data, m := actionChoices(t)
	maxAction := DefaultCollect().MaxAction
	stage := DefaultConfig().ACT
	stage.Updates, stage.GRPO.Prompts, stage.GRPO.GroupSize = 6, 4, 4
	stage.GRPO.Policy.MiniBatch = 16
	stage.GRPO.Policy.Optim.LR = 1e-2
	stage.GRPO.Rollout.Workers = 1
	x := ACTExtras{Pairs: f.pairs, Decoding: DecodeTrie, MaxAction: maxAction}
	var kls []float64
	x.Each = func(u int, _ *model.Model, loss float64) error {
		kls = append(kls, loss)
		return nil
	}
	plain, _, err := TrainACTWith(context.Background(), m, f.env, ChoiceAction, data, stage, x)
	require.NoError(t, err)
	for _, v := range kls {
		assert.True(t, math.IsNaN(v), "no term, no KL")
	}
	kls = nil
	stage.Actor = &ActorTerm{Source: ActorKL, Beta: 10, MiniBatch: 8}
	held, _, err := TrainACTWith(context.Background(), m, f.env, ChoiceAction, data, stage, x)
	require.NoError(t, err)
	require.Len(t, kls, stage.Updates)
	for _, v := range kls {
		assert.True(t, v >= -1e-6 && !math.IsInf(v, 0), "KL %v", v)
	}
	states := make([]textworld.State, len(f.pairs))
	for i, p := range f.pairs {
		states[i] = p.State
	}
	klPlain, _ := plainTrieKL(t, m, plain, f.env, states, maxAction)
	klHeld, _ := plainTrieKL(t, m, held, f.env, states, maxAction)
	t.Logf("KL(start ‖ ·) over the listed commands after the stage: %.4f without the anchor, %.4f with β = 10 (per update %v)", klPlain, klHeld, kls)
	require.Greater(t, klPlain, 0.005, "the stage moves the actor")
	assert.Less(t, klHeld, klPlain/2)
}

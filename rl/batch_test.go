package rl

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
)

// episode builds a trajectory from a compact description: a prompt of
// length p, then turns, each with n agent tokens (kind, critique) followed by
// obs observation tokens.
type turn struct {
	n, obs int
	kind   tasks.Kind
	z      int8
}

func episode(p int, reward float64, group int, turns ...turn) *Trajectory {
	t := &Trajectory{Reward: reward, Group: group}
	add := func(agent bool) {
		t.Tokens = append(t.Tokens, int32(len(t.Tokens)%7+3))
		t.Agent = append(t.Agent, agent)
		lp := float32(0)
		if agent {
			lp = -0.5
		}
		t.Logp = append(t.Logp, lp)
	}
	for range p {
		add(false)
	}
	for _, u := range turns {
		start := len(t.Tokens)
		for range u.n {
			add(true)
		}
		t.Steps = append(t.Steps, Step{Start: start, End: len(t.Tokens), Kind: u.kind, Z: u.z})
		for range u.obs {
			add(false)
		}
	}
	return t
}

func TestNewBatchPacksInPredictionOrder(t *testing.T) {
	// Tokens 0..5: prompt P P, agent A A (step 0, AS, +1), obs O, agent A
	// (step 1, BT, −1). Predictions j = 0..4 predict tokens 1..5.
	tr := episode(2, 1, 0, turn{2, 1, tasks.AS, 1}, turn{1, 0, tasks.BT, -1})
	b, err := NewBatch([]*Trajectory{tr})
	require.NoError(t, err)
	assert.Equal(t, []int32{0, 5}, b.Packed.Offsets)
	// mask[j] = Agent[j+1]: tokens 1..5 are P A A O A.
	assert.Equal(t, []uint8{0, 1, 1, 0, 1}, b.Packed.Mask)
	assert.Equal(t, tr.Tokens[1:], b.Targets)
	assert.Equal(t, []float32{0, -0.5, -0.5, 0, -0.5}, b.OldLogp)
	// Steps shift by one: token spans [2,4) and [5,6) → predictions [1,3), [4,5).
	assert.Equal(t, []int32{1, 4}, b.Steps.Start)
	assert.Equal(t, []int32{3, 5}, b.Steps.End)
	assert.Equal(t, []int8{1, -1}, b.Steps.Critique)
	// The reward sits on the last agent prediction (j = 4).
	assert.Equal(t, []float32{0, 0, 0, 0, 1}, b.Rewards)
	assert.Equal(t, 3, b.NumAgentTokens())
}

// A turn judged token by token (Step.TokenZ) becomes one single-token step
// per critique; the turn's own Z and its EOT token then count for nothing.
func TestNewBatchSplitsPerTokenCritiques(t *testing.T) {
	// Tokens: prompt P P, agent A (AS, +1), obs O, agent A A A (BT, three
	// tokens, the last one EOT, per-token critiques +1 −1).
	tr := episode(2, 1, 0, turn{1, 1, tasks.AS, 1}, turn{3, 0, tasks.BT, -1})
	tr.Steps[1].TokenZ = []int8{1, -1}
	b, err := NewBatch([]*Trajectory{tr})
	require.NoError(t, err)
	// Spans [2,3), [4,5), [5,6) → predictions [1,2), [3,4), [4,5).
	assert.Equal(t, []int32{1, 3, 4}, b.Steps.Start)
	assert.Equal(t, []int32{2, 4, 5}, b.Steps.End)
	assert.Equal(t, []int8{1, 1, -1}, b.Steps.Critique)
	assert.Equal(t, []uint8{uint8(tasks.AS), uint8(tasks.BT), uint8(tasks.BT)}, b.StepKinds)
	assert.Equal(t, []int32{0, 3}, b.Steps.Offsets)
}

func TestNewBatchRejectsBadTrajectories(t *testing.T) {
	good := func() *Trajectory { return episode(2, 1, 0, turn{2, 1, tasks.AS, 1}) }
	cases := map[string]func(*Trajectory){
		"short":          func(t *Trajectory) { t.Tokens, t.Agent, t.Logp = t.Tokens[:1], t.Agent[:1], t.Logp[:1] },
		"lengths":        func(t *Trajectory) { t.Logp = t.Logp[:2] },
		"agent prompt":   func(t *Trajectory) { t.Agent[0] = true },
		"step outside":   func(t *Trajectory) { t.Steps[0].End = 99 },
		"step on prompt": func(t *Trajectory) { t.Steps[0].Start = 1 },
		"critique":       func(t *Trajectory) { t.Steps[0].Z = 2 },
		"token critique": func(t *Trajectory) { t.Steps[0].TokenZ = []int8{1, -2} },
		"token count":    func(t *Trajectory) { t.Steps[0].TokenZ = []int8{1, 1, 1} },
	}
	for name, mutate := range cases {
		tr := good()
		mutate(tr)
		_, err := NewBatch([]*Trajectory{tr})
		assert.Error(t, err, name)
	}
	_, err := NewBatch(nil)
	assert.NoError(t, err, "an empty batch is valid")
}

func TestSelectCritiques(t *testing.T) {
	tr := episode(1, 1, 0,
		turn{1, 1, tasks.AS, 1}, turn{1, 1, tasks.BT, -1},
		turn{1, 1, tasks.AS, 0}, turn{1, 1, tasks.BT, 1},
		turn{1, 0, tasks.AS, -1})
	b, err := NewBatch([]*Trajectory{tr})
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(1, 2))
	cases := []struct {
		kinds CritiqueSet
		p     Perturb
		want  []int8
	}{
		{"as+bt", Perturb{}, []int8{1, -1, 0, 1, -1}},
		{"as", Perturb{}, []int8{1, 0, 0, 0, -1}},
		{"bt", Perturb{}, []int8{0, -1, 0, 1, 0}},
		{"none", Perturb{}, []int8{0, 0, 0, 0, 0}},
		{"as+bt", Perturb{Flip: 1}, []int8{-1, 1, 0, -1, 1}},
		{"as+bt", Perturb{Keep: "first", KeepFrac: 0.4}, []int8{1, -1, 0, 0, 0}}, // ⌈0.4·5⌉ = 2
		{"as+bt", Perturb{Keep: "last", KeepFrac: 0.4}, []int8{0, 0, 0, 1, -1}},
		{"as+bt", Perturb{Keep: "bt"}, []int8{0, -1, 0, 1, 0}},
		{"as+bt", Perturb{FillMissing: true, Fill: -1}, []int8{1, -1, -1, 1, -1}},
	}
	for _, c := range cases {
		require.NoError(t, c.p.Validate())
		z, _ := SelectCritiques(b, c.kinds, c.p, rng)
		assert.Equal(t, c.want, z, "%s %+v", c.kinds, c.p)
	}
	assert.Equal(t, []int8{1, -1, 0, 1, -1}, b.Steps.Critique, "the batch's critiques are unchanged")

	for _, bad := range []Perturb{{Flip: 1.5}, {Keep: "middle"}, {Keep: "first"}, {FillMissing: true, Fill: 0}} {
		assert.Error(t, bad.Validate(), "%+v", bad)
	}
	assert.Error(t, CritiqueSet("all").Validate())
}

// With α = 0.3 about 30% of the nonzero critiques flip.
func TestFlipRate(t *testing.T) {
	var trajs []*Trajectory
	for range 400 {
		trajs = append(trajs, episode(1, 0, 0, turn{1, 1, tasks.AS, 1}, turn{1, 1, tasks.BT, -1}, turn{1, 0, tasks.AS, 0}))
	}
	b, err := NewBatch(trajs)
	require.NoError(t, err)
	_, flipped := SelectCritiques(b, CritiquesBoth, Perturb{Flip: 0.3}, rand.New(rand.NewPCG(3, 4)))
	assert.InDelta(t, 0.3, float64(flipped)/800, 0.04)
}

// rows lays each trajectory's predictions at the start of its row and
// leaves the rest, and every unused row, as padding: token Pad predicting
// Pad, mask 0, zero inputs.
func TestRowsLayout(t *testing.T) {
	a := episode(2, 1, 0, turn{2, 1, tasks.AS, 1}, turn{1, 0, tasks.BT, -1}) // 6 tokens, 5 predictions
	c := episode(1, 0, 1, turn{1, 0, tasks.BT, 1})                           // 2 tokens, 1 prediction
	b, err := NewBatch([]*Trajectory{a, c})
	require.NoError(t, err)
	for i := range b.Adv {
		b.Adv[i], b.Returns[i], b.Values[i] = float32(i), float32(10+i), float32(20+i)
	}
	r := newRows(3, 6)
	require.NoError(t, r.load(b, []int{1, 0}, nil))
	assert.Equal(t, []int{1, 0, -1}, r.traj)
	assert.Equal(t, []int32{0, 6, 12, 18}, r.packed.Offsets)
	// Row 0: trajectory c (prediction 5 of the batch), row 1: a (0..4).
	assert.Equal(t, []uint8{1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0}, r.packed.Mask)
	assert.Equal(t, c.Tokens[:1], r.tokens[0:1])
	assert.Equal(t, a.Tokens[:5], r.tokens[6:11])
	assert.Equal(t, a.Tokens[1:], r.targets[6:11])
	assert.Equal(t, make([]int32, 7), append(r.tokens[11:12], r.tokens[12:]...))
	assert.Equal(t, 5.0, r.adv[0])
	assert.Equal(t, []float64{0, 1, 2, 3, 4, 0}, r.adv[6:12])
	assert.Equal(t, 11.0, r.returns[7])
	assert.Equal(t, 24.0, r.oldValues[10])

	// scatter is load's inverse for the loaded rows.
	out := make([]float32, b.NumTokens())
	src := make([]float32, 18)
	for i := range src {
		src[i] = float32(100 + i)
	}
	r.scatter(b, src, out, true)
	assert.Equal(t, []float32{0, 107, 108, 0, 110, 100}, out)

	assert.Error(t, r.load(b, []int{0, 1, 0, 1}, nil), "more trajectories than rows")
	assert.ErrorContains(t, newRows(2, 4).load(b, []int{0}, nil), "predictions")
}

// A partial minibatch in a larger graph: the empty rows change neither the
// loss nor the gradient (their mask is 0 and the rows are independent), so
// the last minibatch of an epoch reuses the graph.
func TestPaddingRowsChangeNothing(t *testing.T) {
	task := flodialEasy(t)
	trajs, _ := play(t, tinyPolicy(t, task, 30, false), task, DefaultRolloutConfig(), trainSpecs(2, 1), 4, 0)
	b, err := NewBatch(trajs)
	require.NoError(t, err)
	for i := range b.Adv {
		b.Adv[i] = float32(math.Sin(float64(i)))
	}
	pc := DefaultPolicy()
	pc.EntropyCoef = 0.01
	run := func(B int) (float64, [][]float32) {
		m := tinyPolicy(t, task, 31, false)
		r := newRows(B, task.MaxTokens()-1)
		a, err := newActorGraph(m, r, pc, AlgoPPO, nil, 0)
		require.NoError(t, err)
		defer a.g.Close()
		require.NoError(t, r.load(b, []int{0, 1}, nil))
		require.NoError(t, setInputs(a.g, r))
		require.NoError(t, a.g.Run())
		m.Params.ZeroGrad()
		require.NoError(t, a.g.AccumulateGrads())
		var grads [][]float32
		for _, p := range m.Params.Params() {
			grads = append(grads, append([]float32(nil), p.Grad...))
		}
		return a.pol.Loss, grads
	}
	l2, g2 := run(2)
	l5, g5 := run(5)
	assert.Equal(t, l2, l5)
	worst := 0.0
	for k := range g2 {
		for i := range g2[k] {
			d := math.Abs(float64(g2[k][i] - g5[k][i]))
			worst = math.Max(worst, d/(1e-3+math.Abs(float64(g2[k][i]))))
		}
	}
	t.Logf("largest relative gradient difference %.2g", worst)
	assert.Less(t, worst, 1e-4)
}

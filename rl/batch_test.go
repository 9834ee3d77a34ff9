package rl

import (
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

package mediq

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
	"arew/tasks/internal/diagnosis/diagnosistest"
)

// handTask is a MediQ task with a hand-written knowledge base of four
// diagnoses and four findings; the patient's options are dx0…dx3 in order
// and the correct one is B (dx1).
//
//	fn0 binary  P(present): dx0 0.9, others 0.05     (hallmark of A)
//	fn1 binary  P(present): dx1 0.9, others 0.05     (hallmark of B)
//	fn2 binary  P(present): 0.1 for all              (not pertinent)
//	fn3 graded  P(high): dx2 0.8, others 0.05; P(low) 0.05 for all
//
// The patient: fn0 absent, fn1 present, fn2 absent but not known (the
// patient cannot answer), fn3 normal, revealed in the prompt.
func handTask(t *testing.T, critiques string, rounds int) *Task {
	cfg := DefaultConfig()
	cfg.Diagnoses, cfg.Findings, cfg.Hallmarks, cfg.Rounds, cfg.Critiques = 4, 4, 1, rounds, critiques
	task, err := New("hand", cfg)
	require.NoError(t, err)
	bin := func(p ...float64) finding {
		f := finding{lik: make([][]float64, 4)}
		for d := range f.lik {
			f.lik[d] = []float64{1 - p[d], p[d]}
		}
		return f
	}
	graded := finding{graded: true, lik: [][]float64{
		{0.9, 0.05, 0.05}, {0.9, 0.05, 0.05}, {0.15, 0.05, 0.8}, {0.9, 0.05, 0.05}}}
	task.kb = &kb{
		findings:  []finding{bin(0.9, 0.05, 0.05, 0.05), bin(0.05, 0.9, 0.05, 0.05), bin(0.1, 0.1, 0.1, 0.1), graded},
		hallmarks: [][]int{{0}, {1}, {3}, {}},
	}
	return task
}

func handEpisode(task *Task) *episode {
	return newEpisode(task, &patient{options: [4]int{0, 1, 2, 3}, truth: 1,
		values: []int{0, 1, 0, 0}, known: []bool{true, true, false, true}, initial: []int{3}})
}

// Every rule of the spec's MediQ critiques (AS, counterfactual BT).
func TestSpecCritiques(t *testing.T) {
	task := handTask(t, "spec", 6)
	e := handEpisode(task)
	diagnosistest.Script(t, task.vocab, e, []diagnosistest.Turn{
		{Action: "fn2", Z: -1, Reply: "unknown"},                // AS: cannot answer → −1
		{Action: "5 5 5 5 <cf> 1 2 3 4", Z: 1, Reply: "<ask>"},  // after unknown: margin unchanged (0) → +1
		{Action: "fn3", Z: -1, Reply: "REP", Repeat: true},      // AS: revealed in the prompt → REP, −1
		{Action: "5 9 5 5 <cf> 5 5 5 5", Z: -1, Reply: "<ask>"}, // after REP: margin changed → −1
		{Action: "fn0", Z: 1, Reply: "absent"},                  // AS: new fact → +1
		{Action: "1 9 5 5 <cf> 5 9 5 5", Z: 1, Reply: "<ask>"},  // real moved, counterfactual did not → +1
		{Action: "dx0", Z: -1, Reply: "BAD", Malformed: true},   // AS: malformed → −1
		{Action: "1 9 5 5 <cf> 0 0 0 9", Z: 1, Reply: "<ask>"},  // after BAD: same belief → +1 (cf unused)
		{Action: "fn1", Z: 1, Reply: "present"},                 // AS: new fact → +1
		{Action: "1 9 1 1 <cf> 9 0 0 0", Z: -1, Reply: "<ask>"}, // counterfactual moved farther → −1
		{Action: "fn0", Z: -1, Reply: "REP", Repeat: true},      // AS: asked before → −1
		{Action: "0 9 0 0", Z: -1, Malformed: true},             // BT without <cf> → malformed, −1
	})
	m := e.Measures()
	assert.False(t, m.Success, "a malformed final answer scores 0")
	assert.Zero(t, m.Evidence)
	// Ψ: 1/4, 9/24, 9/20, 9/20, 9/12, 9/12 (carried over the malformed one).
	assert.InDelta(t, (0.75-0.25)/6, m.BTProxy, 1e-12)
	assert.InDelta(t, 0.125+0.075+0.3, m.CBT, 1e-12)
	assert.InDelta(t, 2.0/6, m.ASProxy, 1e-12)
	assert.Equal(t, 2, m.Malformed)
	assert.Equal(t, 2, m.Repeats)
	// Exact Bayes: prior from "fn3 normal", then fn0 absent and fn1 present.
	prior := []float64{0.9, 0.9, 0.15, 0.9}
	post := []float64{0.9 * 0.1 * 0.05, 0.9 * 0.95 * 0.9, 0.15 * 0.95 * 0.05, 0.9 * 0.95 * 0.05}
	sum := func(x []float64) float64 { return x[0] + x[1] + x[2] + x[3] }
	assert.InDelta(t, post[1]/sum(post)-prior[1]/sum(prior), m.IAS, 1e-12)
	_, _, err := e.Step(nil)
	assert.Error(t, err, "step after the end")
}

// Every rule of the consistent-set critiques (RuleOut 0.1). After the
// prompt's "fn3 normal" the posterior is ∝ (0.9, 0.9, 0.15, 0.9): C is all
// four options. "fn1 present" leaves only B (the others at odds 1/18).
func TestConsistentCritiques(t *testing.T) {
	task := handTask(t, "consistent", 7)
	e := handEpisode(task)
	diagnosistest.Script(t, task.vocab, e, []diagnosistest.Turn{
		{Action: "fn3", Z: -1, Reply: "REP", Repeat: true},      // repeat while |C| = 4 → −1
		{Action: "9 0 0 0 <cf> 9 0 0 0", Z: 0, Reply: "<ask>"},  // top in C, nothing eliminated → 0
		{Action: "fn2", Z: -1, Reply: "unknown"},                // cannot split C → −1
		{Action: "0 0 0 9 <cf> 0 0 0 9", Z: 0, Reply: "<ask>"},  // top in C → 0
		{Action: "fn1", Z: 1, Reply: "present"},                 // splits C → +1; C = {B}
		{Action: "0 9 0 0 <cf> 9 9 9 9", Z: 1, Reply: "<ask>"},  // top in C after an elimination → +1
		{Action: "fn3", Z: 0, Reply: "REP", Repeat: true},       // |C| = 1 → 0
		{Action: "9 9 0 0 <cf> 0 9 0 0", Z: -1, Reply: "<ask>"}, // tied top on a ruled-out option → −1
		{Action: "", Z: -1, Reply: "BAD", Malformed: true},      // malformed → −1 even when |C| = 1
		{Action: "0 9 0 0 <cf>", Z: -1, Reply: "BAD", Malformed: true},
		{Action: "fn0", Z: 0, Reply: "absent"},                 // |C| = 1 → 0
		{Action: "0 9 0 0 <cf> 0 9 0 0", Z: 0, Reply: "<ask>"}, // in C, nothing eliminated → 0
		{Action: "fn1", Z: 0, Reply: "REP", Repeat: true},
		{Action: "1 9 0 0 <cf> 0 9 0 0", Z: 0},
	})
	m := e.Measures()
	assert.True(t, m.Success)
	assert.InDelta(t, 0.9, m.Evidence, 1e-12)
	assert.InDelta(t, 1.0/7, m.ASProxy, 1e-12)
}

// Every rule of the mass critiques: the consistent AS rule, and the
// belief's mass on C after the reply against the last valid belief's. C is
// all four options until "fn1 present" leaves only B.
func TestMassCritiques(t *testing.T) {
	task := handTask(t, "mass", 6)
	e := handEpisode(task)
	diagnosistest.Script(t, task.vocab, e, []diagnosistest.Turn{
		{Action: "fn2", Z: -1, Reply: "unknown"},                // cannot split C → −1
		{Action: "9 0 0 0 <cf> 0 9 0 0", Z: 1, Reply: "<ask>"},  // all of it on C (every option) → +1
		{Action: "fn1", Z: 1, Reply: "present"},                 // splits C → +1; C = {B}
		{Action: "9 0 0 0 <cf> 0 9 0 0", Z: -1, Reply: "<ask>"}, // as little on C as before, after an elimination → −1
		{Action: "fn3", Z: 0, Reply: "REP", Repeat: true},       // |C| = 1 → 0
		{Action: "1 9 1 1 <cf> 9 0 0 0", Z: 1, Reply: "<ask>"},  // more on C (3/4 > 0) → +1, the cf unjudged
		{Action: "fn0", Z: 0, Reply: "absent"},                  // |C| = 1 → 0; nothing eliminated
		{Action: "1 5 1 1 <cf> 0 9 0 0", Z: -1, Reply: "<ask>"}, // less on C (5/8 < 3/4) → −1
		{Action: "fn0", Z: 0, Reply: "REP", Repeat: true},
		{Action: "0 9 0 0 <cf>", Z: -1, Reply: "BAD", Malformed: true}, // malformed → −1
		{Action: "fn1", Z: 0, Reply: "REP", Repeat: true},
		{Action: "1 5 1 1 <cf> 0 9 0 0", Z: 0}, // as much as the last valid belief, nothing eliminated → 0
	})
	assert.True(t, e.Measures().Success)
}

func TestCounterfactualRule(t *testing.T) {
	u := tasks.Uniform(4)
	a := tasks.Belief{0.7, 0.1, 0.1, 0.1}
	b := tasks.Belief{0.1, 0.7, 0.1, 0.1}
	for _, c := range []struct {
		name        string
		fact        bool
		prev, b, cf tasks.Belief
		truth       int
		want        int8
	}{
		{"fact: both stay", true, u, u, u, 0, 1},
		{"fact: real moves, cf stays", true, u, a, u, 0, 1},
		{"fact: equal moves, either direction", true, u, b, a, 0, 1},
		{"fact: real stays, cf moves", true, u, u, a, 0, -1},
		{"no fact: margin kept", false, a, a, u, 0, 1},
		{"no fact: mass moved off the truth", false, a, b, a, 0, -1},
		{"no fact: the others reshuffled, margin kept", false, tasks.Belief{0.7, 0.2, 0.05, 0.05}, tasks.Belief{0.7, 0.05, 0.2, 0.05}, u, 0, 1},
	} {
		assert.Equal(t, c.want, counterfactualBT(c.fact, c.prev, c.b, c.cf, c.truth), c.name)
	}
}

// Malformed and out-of-range actions, in both kinds of turn.
func TestMalformedActions(t *testing.T) {
	task := handTask(t, "spec", 4)
	l, cf := task.levels.First, task.cf
	fn, dx := task.fn0, task.dx0
	for _, c := range []struct {
		name   string
		turnBT bool
		action []tasks.Token
	}{
		{"AS empty", false, nil},
		{"AS two findings", false, []tasks.Token{fn, fn + 1}},
		{"AS diagnosis token", false, []tasks.Token{dx}},
		{"AS value token", false, []tasks.Token{task.binary[1]}},
		{"AS level", false, []tasks.Token{l}},
		{"AS <cf>", false, []tasks.Token{cf}},
		{"AS finding past F", false, []tasks.Token{fn + 4}},
		{"AS negative id", false, []tasks.Token{-3}},
		{"AS huge id", false, []tasks.Token{1 << 30}},
		{"BT empty", true, nil},
		{"BT real only", true, []tasks.Token{l, l + 9, l, l}},
		{"BT <cf> misplaced", true, []tasks.Token{l, l + 9, l, cf, l, l, l + 9, l, l}},
		{"BT long", true, []tasks.Token{l, l + 9, l, l, cf, l, l + 9, l, l, l}},
		{"BT real all zero", true, []tasks.Token{l, l, l, l, cf, l, l + 9, l, l}},
		{"BT counterfactual all zero", true, []tasks.Token{l, l + 9, l, l, cf, l, l, l, l}},
		{"BT finding in a belief", true, []tasks.Token{l, fn, l, l, cf, l, l + 9, l, l}},
		{"BT negative id", true, []tasks.Token{-1, l + 9, l, l, cf, l, l + 9, l, l}},
		{"BT two <cf>", true, []tasks.Token{l, l + 9, l, l, cf, cf, l + 9, l, l}},
	} {
		e := handEpisode(task)
		if c.turnBT {
			_, _, err := e.Step([]tasks.Token{fn})
			require.NoError(t, err)
		}
		obs, s, err := e.Step(c.action)
		require.NoError(t, err, c.name)
		assert.True(t, s.Malformed, c.name)
		assert.Equal(t, int8(-1), s.Z, c.name)
		assert.Equal(t, task.bad, obs[0], c.name)
		if c.turnBT {
			assert.InDelta(t, 0.25, s.TruthMass, 1e-12, "the flat prior is carried")
		} else {
			assert.True(t, math.IsNaN(s.TruthMass))
		}
	}
}

package flodial

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
)

// handTask is a 3-fault, 5-question task with 7 rounds; handTable's truth is
// fault 1. Cells (rows are questions, columns faults 0, 1, 2):
//
//	q0: YES NO  NO     narrow
//	q1: NO  UNK YES    balanced with an UNK cell
//	q2: NO  NO  NO     useless
//	q3: YES YES NO     balanced
//	q4: NO  YES YES    balanced
func handTask(t *testing.T, critiques string) *Task {
	cfg := EasyConfig()
	cfg.Faults, cfg.Questions, cfg.Rounds, cfg.Critiques = 3, 5, 7, critiques
	task, err := New("hand", cfg)
	require.NoError(t, err)
	return task
}

func handEpisode(task *Task) *episode {
	return newEpisode(task, &instance{truth: 1, cells: [][]int{
		{yes, no, no}, {no, unk, yes}, {no, no, no}, {yes, yes, no}, {no, yes, yes},
	}})
}

// act encodes a scripted action: "q3", "levels 0 3 3", or raw words.
func act(task *Task, a string) []tasks.Token {
	var out []tasks.Token
	for _, w := range strings.Fields(strings.TrimPrefix(a, "levels ")) {
		if id, ok := task.vocab.Lookup(w); ok {
			out = append(out, id)
		} else {
			out = append(out, 999) // outside the vocabulary
		}
	}
	return out
}

type scripted struct {
	action    string
	z         int8
	tokenZ    []int8 // per-token critiques (nil: none)
	reply     string // first observation word ("" for none)
	malformed bool
	repeat    bool
}

func runScript(t *testing.T, task *Task, e *episode, script []scripted) {
	for i, s := range script {
		require.False(t, e.Done(), "step %d", i)
		obs, st, err := e.Step(act(task, s.action))
		require.NoError(t, err)
		assert.Equal(t, s.z, st.Z, "step %d %q: %s", i, s.action, st.Text)
		assert.Equal(t, s.tokenZ, st.TokenZ, "step %d %q: per-token critiques", i, s.action)
		assert.Equal(t, s.malformed, st.Malformed, "step %d", i)
		assert.Equal(t, s.repeat, st.Repeat, "step %d", i)
		assert.Equal(t, i, st.Turn)
		if s.reply == "" {
			assert.Empty(t, obs, "step %d", i)
		} else {
			require.NotEmpty(t, obs)
			assert.Equal(t, s.reply, task.vocab.Word(obs[0]), "step %d", i)
		}
	}
	assert.True(t, e.Done())
}

// Every rule of the spec's FloDial critiques, in one hand-built episode.
func TestSpecCritiques(t *testing.T) {
	task := handTask(t, "spec")
	e := handEpisode(task)
	runScript(t, task, e, []scripted{
		{action: "q3", z: 1, reply: "YES"},                  // AS: YES → +1
		{action: "levels 0 3 3", z: 1, reply: "<ask>"},      // BT after YES: truth 1/3 → 1/2 rose → +1
		{action: "q0", z: 0, reply: "NO"},                   // AS: NO → 0
		{action: "levels 0 3 3", z: -1, reply: "<ask>"},     // BT after NO: did not rise → −1
		{action: "q1", z: -1, reply: "UNK"},                 // AS: UNK → −1
		{action: "levels 0 2 2", z: 1, reply: "<ask>"},      // BT after UNK: unchanged (normalised) → +1
		{action: "q1", z: -1, reply: "REP", repeat: true},   // AS: repeat → −1, own token
		{action: "levels 0 3 0", z: -1, reply: "<ask>"},     // BT after REP: changed → −1
		{action: "0", z: -1, reply: "BAD", malformed: true}, // AS: malformed → −1
		{action: "levels 0 3 0", z: 1, reply: "<ask>"},      // BT after BAD: unchanged → +1
		{action: "q2", z: 0, reply: "NO"},
		{action: "levels 9", z: -1, reply: "BAD", malformed: true}, // BT malformed → −1
		{action: "q4", z: 1, reply: "YES"},
		{action: "levels 1 3 0", z: -1}, // final: 1 → 3/4 against the carried belief → −1
	})
	m := e.Measures()
	assert.True(t, m.Success)
	assert.Equal(t, 1.0, m.Reward)
	assert.InDelta(t, 0.75, m.Evidence, 1e-12)
	assert.InDelta(t, 1-1.0/3, m.IAS, 1e-12)
	// Ψ: 1/2, 1/2, 1/2, 1, 1, 1 (carried over the malformed belief), 3/4.
	assert.InDelta(t, (0.75-1.0/3)/7, m.BTProxy, 1e-12)
	assert.InDelta(t, (0.5-1.0/3)+0.5, m.CBT, 1e-12)
	assert.InDelta(t, 2.0/7, m.ASProxy, 1e-12)
	assert.Equal(t, 2, m.Malformed)
	assert.Equal(t, 1, m.Repeats)
	assert.Equal(t, 14, m.Turns)
	_, _, err := e.Step(act(task, "q0"))
	assert.Error(t, err, "step after the end")
}

// Every rule of the consistent-set critiques, in one hand-built episode.
func TestConsistentCritiques(t *testing.T) {
	task := handTask(t, "consistent")
	e := handEpisode(task)
	runScript(t, task, e, []scripted{
		{action: "q2", z: -1, reply: "NO"},                // does not split C = {0,1,2} → −1
		{action: "levels 3 0 0", z: 0, reply: "<ask>"},    // top in C, nothing eliminated → 0
		{action: "q3", z: 1, reply: "YES"},                // splits → +1; C = {0,1}
		{action: "levels 0 0 3", z: -1, reply: "<ask>"},   // top ruled out → −1
		{action: "q3", z: -1, reply: "REP", repeat: true}, // repeat while |C| = 2 → −1
		{action: "levels 3 3 0", z: 0, reply: "<ask>"},    // tops in C, nothing eliminated → 0
		{action: "q4", z: 1, reply: "YES"},                // splits {0,1} → +1; C = {1}
		{action: "levels 0 3 0", z: 1, reply: "<ask>"},    // in C after an elimination → +1
		{action: "q0", z: 0, reply: "NO"},                 // |C| = 1 → 0
		{action: "levels 3 3 0", z: -1, reply: "<ask>"},   // a tied top on a ruled-out fault → −1
		{action: "<ask>", z: -1, reply: "BAD", malformed: true},
		{action: "", z: -1, reply: "BAD", malformed: true},
		{action: "q3", z: 0, reply: "REP", repeat: true}, // repeat once |C| = 1 → 0
		{action: "levels 0 3 0", z: 0},
	})
	m := e.Measures()
	assert.True(t, m.Success)
	assert.InDelta(t, 2.0/7, m.ASProxy, 1e-12)
}

// The per-fault critiques: the consistent AS rule, and one critique per
// level token of a belief (tasks.PerHypothesisBT against C after the reply);
// Z keeps the consistent BT rule as the turn's summary. A malformed belief
// is one −1 step, without per-token critiques.
func TestPerFaultCritiques(t *testing.T) {
	task := handTask(t, "per-fault")
	e := handEpisode(task)
	runScript(t, task, e, []scripted{
		{action: "q2", z: -1, reply: "NO"}, // does not split C = {0,1,2}
		{action: "levels 3 3 3", z: 0, tokenZ: []int8{1, 1, 1}, reply: "<ask>"},
		{action: "q3", z: 1, reply: "YES"},                                        // C = {0,1}
		{action: "levels 3 3 3", z: -1, tokenZ: []int8{1, 1, -1}, reply: "<ask>"}, // stale on fault 2
		{action: "q4", z: 1, reply: "YES"},                                        // C = {1}
		{action: "levels 3 3 0", z: -1, tokenZ: []int8{-1, 1, 1}, reply: "<ask>"}, // half the update
		{action: "q0", z: 0, reply: "NO"},
		{action: "levels 0 3 0", z: 0, tokenZ: []int8{1, 1, 1}, reply: "<ask>"},
		{action: "q1", z: 0, reply: "UNK"},
		{action: "levels 0 2", z: -1, reply: "BAD", malformed: true},
		{action: "q3", z: 0, reply: "REP", repeat: true},
		{action: "levels 1 2 0", z: 0, tokenZ: []int8{-1, 1, 1}, reply: "<ask>"},
		{action: "q4", z: 0, reply: "REP", repeat: true},
		{action: "levels 0 1 0", z: 0, tokenZ: []int8{1, 1, 1}},
	})
	assert.True(t, e.Measures().Success)
}

// The two turn-level BT rules that read no hidden truth, on one hand-built
// episode (the consistent AS rule in both): "mass" (the sign of the change
// of the belief's mass on C, tasks.MassBT) and "majority" (the sign of the
// sum of the per-fault critiques, tasks.MajorityBT). Neither sets TokenZ.
func TestTurnLevelCritiquesWithoutTruth(t *testing.T) {
	script := func(bt []int8) []scripted {
		return []scripted{
			{action: "q2", z: -1, reply: "NO"},                 // does not split C = {0,1,2}
			{action: "levels 3 3 3", z: bt[0], reply: "<ask>"}, // all on C
			{action: "q3", z: 1, reply: "YES"},                 // C = {0,1}
			{action: "levels 0 0 3", z: bt[1], reply: "<ask>"}, // mass moved off C
			{action: "q4", z: 1, reply: "YES"},                 // C = {1}
			{action: "levels 3 3 0", z: bt[2], reply: "<ask>"}, // half the update
			{action: "q0", z: 0, reply: "NO"},                  // |C| = 1
			{action: "levels 0 3 0", z: bt[3], reply: "<ask>"}, // exact
			{action: "q1", z: 0, reply: "UNK"},                 // |C| = 1
			{action: "levels 0 2", z: -1, reply: "BAD", malformed: true},
			{action: "q3", z: 0, reply: "REP", repeat: true},
			{action: "levels 1 2 0", z: bt[4], reply: "<ask>"}, // mass off C again
			{action: "q4", z: 0, reply: "REP", repeat: true},
			{action: "levels 0 1 0", z: bt[5]},
		}
	}
	for _, c := range []struct {
		rule string
		bt   []int8
	}{
		// mass on C: 1 (all), 0 < 2/3, 1/2 > 0, 1, 2/3 < 1, 1.
		{"mass", []int8{1, -1, 1, 1, -1, 1}},
		// per-fault signs {1,1,1}, {-1,-1,-1}, {-1,1,1}, {1,1,1}, {-1,1,1}, {1,1,1}.
		{"majority", []int8{1, -1, 1, 1, 1, 1}},
	} {
		t.Run(c.rule, func(t *testing.T) {
			task := handTask(t, c.rule)
			e := handEpisode(task)
			runScript(t, task, e, script(c.bt))
			assert.True(t, e.Measures().Success)
		})
	}
}

// The final answer scores only a unique argmax on the truth.
func TestFinalAnswer(t *testing.T) {
	task := handTask(t, "spec")
	for _, c := range []struct {
		final    string
		success  bool
		evidence float64
	}{
		{"levels 0 3 0", true, 1},
		{"levels 2 3 1", true, 0.5},
		{"levels 3 3 0", false, 0.5}, // tie
		{"levels 3 2 0", false, 0.4},
		{"levels 0 0 0", false, 0}, // malformed: no mass
		{"q1", false, 0},           // malformed
	} {
		e := handEpisode(task)
		for !e.Done() {
			a := "q3"
			switch {
			case e.Next().Final:
				a = c.final
			case e.Next().Kind == tasks.BT:
				a = "levels 1 1 1"
			}
			_, _, err := e.Step(act(task, a))
			require.NoError(t, err)
		}
		m := e.Measures()
		assert.Equal(t, c.success, m.Success, c.final)
		assert.InDelta(t, c.evidence, m.Evidence, 1e-12, c.final)
	}
}

// Malformed, repeated and out-of-range actions, in both kinds of turn.
func TestMalformedActions(t *testing.T) {
	task := handTask(t, "spec")
	big, neg := tasks.Token(1<<30), tasks.Token(-7)
	q0, l0 := task.q0, task.levels.First
	for _, c := range []struct {
		name   string
		turnBT bool
		action []tasks.Token
	}{
		{"AS empty", false, nil},
		{"AS two questions", false, []tasks.Token{q0, q0 + 1}},
		{"AS level token", false, []tasks.Token{l0}},
		{"AS eot", false, []tasks.Token{tasks.EOT}},
		{"AS pad", false, []tasks.Token{tasks.Pad}},
		{"AS id past the vocabulary", false, []tasks.Token{big}},
		{"AS negative id", false, []tasks.Token{neg}},
		{"AS question past Q", false, []tasks.Token{q0 + 5}},
		{"BT empty", true, nil},
		{"BT short", true, []tasks.Token{l0, l0 + 1}},
		{"BT long", true, []tasks.Token{l0, l0 + 1, l0, l0}},
		{"BT question token", true, []tasks.Token{l0, q0, l0 + 1}},
		{"BT level past the grid", true, []tasks.Token{l0, l0 + 4, l0 + 1}},
		{"BT all zero", true, []tasks.Token{l0, l0, l0}},
		{"BT negative id", true, []tasks.Token{neg, l0 + 1, l0}},
	} {
		e := handEpisode(task)
		if c.turnBT {
			_, _, err := e.Step([]tasks.Token{q0 + 3})
			require.NoError(t, err)
		}
		obs, s, err := e.Step(c.action)
		require.NoError(t, err, c.name)
		assert.True(t, s.Malformed, c.name)
		assert.Equal(t, int8(-1), s.Z, c.name)
		assert.Equal(t, "BAD", task.vocab.Word(obs[0]), c.name)
		assert.False(t, s.Repeat, c.name)
		if !c.turnBT {
			assert.True(t, math.IsNaN(s.TruthMass))
		} else {
			assert.InDelta(t, 1.0/3, s.TruthMass, 1e-12, "the flat prior is carried")
		}
	}
}

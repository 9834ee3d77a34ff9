package flodial

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
	"arew/tasks/internal/diagnosis/diagnosistest"
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

// Every rule of the spec's FloDial critiques, in one hand-built episode.
func TestSpecCritiques(t *testing.T) {
	task := handTask(t, "spec")
	e := handEpisode(task)
	diagnosistest.Script(t, task.vocab, e, []diagnosistest.Turn{
		{Action: "q3", Z: 1, Reply: "YES"},                  // AS: YES → +1
		{Action: "0 3 3", Z: 1, Reply: "<ask>"},             // BT after YES: truth 1/3 → 1/2 rose → +1
		{Action: "q0", Z: 0, Reply: "NO"},                   // AS: NO → 0
		{Action: "0 3 3", Z: -1, Reply: "<ask>"},            // BT after NO: did not rise → −1
		{Action: "q1", Z: -1, Reply: "UNK"},                 // AS: UNK → −1
		{Action: "0 2 2", Z: 1, Reply: "<ask>"},             // BT after UNK: unchanged (normalised) → +1
		{Action: "q1", Z: -1, Reply: "REP", Repeat: true},   // AS: repeat → −1, own token
		{Action: "0 3 0", Z: -1, Reply: "<ask>"},            // BT after REP: changed → −1
		{Action: "0", Z: -1, Reply: "BAD", Malformed: true}, // AS: malformed → −1
		{Action: "0 3 0", Z: 1, Reply: "<ask>"},             // BT after BAD: unchanged → +1
		{Action: "q2", Z: 0, Reply: "NO"},
		{Action: "9", Z: -1, Reply: "BAD", Malformed: true}, // BT malformed → −1
		{Action: "q4", Z: 1, Reply: "YES"},
		{Action: "1 3 0", Z: -1}, // final: 1 → 3/4 against the carried belief → −1
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
	_, _, err := e.Step(diagnosistest.Words(task.vocab, "q0"))
	assert.Error(t, err, "step after the end")
}

// Every rule of the consistent-set critiques, in one hand-built episode.
func TestConsistentCritiques(t *testing.T) {
	task := handTask(t, "consistent")
	e := handEpisode(task)
	diagnosistest.Script(t, task.vocab, e, []diagnosistest.Turn{
		{Action: "q2", Z: -1, Reply: "NO"},                // does not split C = {0,1,2} → −1
		{Action: "3 0 0", Z: 0, Reply: "<ask>"},           // top in C, nothing eliminated → 0
		{Action: "q3", Z: 1, Reply: "YES"},                // splits → +1; C = {0,1}
		{Action: "0 0 3", Z: -1, Reply: "<ask>"},          // top ruled out → −1
		{Action: "q3", Z: -1, Reply: "REP", Repeat: true}, // repeat while |C| = 2 → −1
		{Action: "3 3 0", Z: 0, Reply: "<ask>"},           // tops in C, nothing eliminated → 0
		{Action: "q4", Z: 1, Reply: "YES"},                // splits {0,1} → +1; C = {1}
		{Action: "0 3 0", Z: 1, Reply: "<ask>"},           // in C after an elimination → +1
		{Action: "q0", Z: 0, Reply: "NO"},                 // |C| = 1 → 0
		{Action: "3 3 0", Z: -1, Reply: "<ask>"},          // a tied top on a ruled-out fault → −1
		{Action: "<ask>", Z: -1, Reply: "BAD", Malformed: true},
		{Action: "", Z: -1, Reply: "BAD", Malformed: true},
		{Action: "q3", Z: 0, Reply: "REP", Repeat: true}, // repeat once |C| = 1 → 0
		{Action: "0 3 0", Z: 0},
	})
	m := e.Measures()
	assert.True(t, m.Success)
	assert.InDelta(t, 2.0/7, m.ASProxy, 1e-12)
}

// The per-fault critiques: the consistent AS rule, and one critique per
// level token of a belief (tasks.AppendPerHypothesisBT against C after the
// reply); Z keeps the consistent BT rule as the turn's summary. A
// malformed belief is one −1 step, without per-token critiques.
func TestPerFaultCritiques(t *testing.T) {
	task := handTask(t, "per-fault")
	e := handEpisode(task)
	diagnosistest.Script(t, task.vocab, e, []diagnosistest.Turn{
		{Action: "q2", Z: -1, Reply: "NO"}, // does not split C = {0,1,2}
		{Action: "3 3 3", Z: 0, TokenZ: []int8{1, 1, 1}, Reply: "<ask>"},
		{Action: "q3", Z: 1, Reply: "YES"},                                 // C = {0,1}
		{Action: "3 3 3", Z: -1, TokenZ: []int8{1, 1, -1}, Reply: "<ask>"}, // stale on fault 2
		{Action: "q4", Z: 1, Reply: "YES"},                                 // C = {1}
		{Action: "3 3 0", Z: -1, TokenZ: []int8{-1, 1, 1}, Reply: "<ask>"}, // half the update
		{Action: "q0", Z: 0, Reply: "NO"},
		{Action: "0 3 0", Z: 0, TokenZ: []int8{1, 1, 1}, Reply: "<ask>"},
		{Action: "q1", Z: 0, Reply: "UNK"},
		{Action: "0 2", Z: -1, Reply: "BAD", Malformed: true},
		{Action: "q3", Z: 0, Reply: "REP", Repeat: true},
		{Action: "1 2 0", Z: 0, TokenZ: []int8{-1, 1, 1}, Reply: "<ask>"},
		{Action: "q4", Z: 0, Reply: "REP", Repeat: true},
		{Action: "0 1 0", Z: 0, TokenZ: []int8{1, 1, 1}},
	})
	assert.True(t, e.Measures().Success)
}

// The two turn-level BT rules that read no hidden truth, on one hand-built
// episode (the consistent AS rule in both): "mass" (the sign of the change
// of the belief's mass on C, tasks.MassBT) and "majority" (the sign of the
// sum of the per-fault critiques, tasks.MajorityBT). Neither sets TokenZ.
func TestTurnLevelCritiquesWithoutTruth(t *testing.T) {
	script := func(bt []int8) []diagnosistest.Turn {
		return []diagnosistest.Turn{
			{Action: "q2", Z: -1, Reply: "NO"},          // does not split C = {0,1,2}
			{Action: "3 3 3", Z: bt[0], Reply: "<ask>"}, // all on C
			{Action: "q3", Z: 1, Reply: "YES"},          // C = {0,1}
			{Action: "0 0 3", Z: bt[1], Reply: "<ask>"}, // mass moved off C
			{Action: "q4", Z: 1, Reply: "YES"},          // C = {1}
			{Action: "3 3 0", Z: bt[2], Reply: "<ask>"}, // half the update
			{Action: "q0", Z: 0, Reply: "NO"},           // |C| = 1
			{Action: "0 3 0", Z: bt[3], Reply: "<ask>"}, // exact
			{Action: "q1", Z: 0, Reply: "UNK"},          // |C| = 1
			{Action: "0 2", Z: -1, Reply: "BAD", Malformed: true},
			{Action: "q3", Z: 0, Reply: "REP", Repeat: true},
			{Action: "1 2 0", Z: bt[4], Reply: "<ask>"}, // mass off C again
			{Action: "q4", Z: 0, Reply: "REP", Repeat: true},
			{Action: "0 1 0", Z: bt[5]},
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
			diagnosistest.Script(t, task.vocab, e, script(c.bt))
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
		{"0 3 0", true, 1},
		{"2 3 1", true, 0.5},
		{"3 3 0", false, 0.5}, // tie
		{"3 2 0", false, 0.4},
		{"0 0 0", false, 0}, // malformed: no mass
		{"q1", false, 0},    // malformed
	} {
		e := handEpisode(task)
		for !e.Done() {
			a := "q3"
			switch {
			case e.Next().Final:
				a = c.final
			case e.Next().Kind == tasks.BT:
				a = "1 1 1"
			}
			_, _, err := e.Step(diagnosistest.Words(task.vocab, a))
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

package rl

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
	_ "arew/tasks/all"
)

// A scripted episode becomes a valid trajectory whose agent tokens are
// exactly the policy's turns plus EOT, one step per turn, and which packs.
func TestPlayScriptedRecordsEveryTask(t *testing.T) {
	for _, name := range tasks.Names() {
		task, err := tasks.New(name, nil)
		require.NoError(t, err)
		pol, err := task.Scripted(tasks.PolicySpec{Kind: "strong"})
		require.NoError(t, err)
		tr, err := PlayScripted(task, pol, tasks.Train, 3, rand.New(rand.NewPCG(1, 2)))
		require.NoError(t, err, name)
		require.NoError(t, tr.Validate(), name)
		assert.Equal(t, tasks.BOS, tr.Tokens[0], name)
		assert.Equal(t, len(tr.Steps), tr.Measures.Turns, name)
		for _, s := range tr.Steps {
			assert.Equal(t, tasks.EOT, tr.Tokens[s.End-1], "%s: every turn ends with EOT", name)
		}
		agent := 0
		for _, s := range tr.Steps {
			agent += s.End - s.Start
		}
		assert.Equal(t, agent, tr.NumAgentTokens(), name)
		_, err = NewBatch([]*Trajectory{tr})
		require.NoError(t, err, name)
	}
}

// Recording over a used trajectory, as PlayInto does, gives what a fresh
// recording gives, per-token critiques included (copied, not shared with
// the task's step), and reuses their arrays: no allocation once grown.
func TestRecordOverReusesTokenZ(t *testing.T) {
	first := []tasks.Step{{Kind: tasks.BT, Z: 1, TokenZ: []int8{1, -1, 1}}, {Kind: tasks.AS, Z: -1},
		{Kind: tasks.BT, TokenZ: []int8{-1, -1, 1, 1}}}
	second := []tasks.Step{{Kind: tasks.AS}, {Kind: tasks.BT, Z: -1, TokenZ: []int8{1, 1, 1, -1, -1}},
		{Kind: tasks.BT, TokenZ: []int8{0, 1}}, {Kind: tasks.BT, Final: true, TokenZ: []int8{-1}}}
	record := func(tr *Trajectory, steps []tasks.Step) {
		r := recorder{tr: tr}
		r.observe([]tasks.Token{1, 2})
		for _, st := range steps {
			r.act([]tasks.Token{5, 6, 7, 8, 9}, nil, nil, st)
			r.observe([]tasks.Token{3})
		}
	}
	used := &Trajectory{}
	record(used, first)
	used.reset()
	record(used, second)
	fresh := &Trajectory{}
	record(fresh, second)
	assert.Equal(t, *fresh, *used)
	second[1].TokenZ[0] = -1 // the task's slice is its own
	assert.Equal(t, int8(1), used.Steps[1].TokenZ[0])
	assert.Zero(t, testing.AllocsPerRun(10, func() {
		used.reset()
		record(used, second)
	}))
}

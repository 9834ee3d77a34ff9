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

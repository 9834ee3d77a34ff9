package pe

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
	"arew/tasks/taskstest"
)

// The hybrid evaluation (tasks.ScriptedTurns) on PE: the strong policy's
// queries with another policy's guesses keep the task's token stream and
// measures (taskstest.CheckScriptedTurns); with the strong guesses too it
// is the strong policy exactly (its moves draw nothing), and with random
// guesses it keeps the strong queries' AS proxy and I_AS while the
// success falls to the random guesses' level.
func TestScriptedTurns(t *testing.T) {
	for _, name := range []string{"pe-g-s2", "pe-f-d6"} {
		t.Run(name, func(t *testing.T) {
			task, err := tasks.New(name, nil)
			require.NoError(t, err)
			limit := task.(*Task).TurnLimit()
			strongSpec := tasks.PolicySpec{Kind: "strong"}
			both := taskstest.CheckScriptedTurns(t, task, strongSpec, tasks.AS, strongSpec, 40, limit)
			strong, err := task.Scripted(strongSpec)
			require.NoError(t, err)
			want, err := tasks.Evaluate(task, strong, tasks.Val, 40, 1, limit)
			require.NoError(t, err)
			assert.Equal(t, want, both)

			guesses := taskstest.CheckScriptedTurns(t, task, strongSpec, tasks.AS, tasks.PolicySpec{Kind: "random"}, 40, limit)
			assert.Equal(t, 1.0, guesses.ASProxy)
			assert.Equal(t, want.IAS, guesses.IAS)
			assert.Less(t, guesses.Success, want.Success/2)

			// The other way round: random queries, the strong guesses.
			taskstest.CheckScriptedTurns(t, task, tasks.PolicySpec{Kind: "random"}, tasks.AS, strongSpec, 10, limit)
			queries := taskstest.CheckScriptedTurns(t, task, strongSpec, tasks.BT, tasks.PolicySpec{Kind: "random"}, 10, limit)
			assert.Less(t, queries.ASProxy, 1.0)
		})
	}
	task, err := tasks.New("pe-f-d6", nil)
	require.NoError(t, err)
	_, err = tasks.ScriptedTurns(task, tasks.PolicySpec{Kind: "oracle"}, tasks.AS, 1)
	assert.ErrorContains(t, err, "unknown policy kind")
	hybrid, err := tasks.ScriptedTurns(task, tasks.PolicySpec{Kind: "strong"}, tasks.AS, 1)
	require.NoError(t, err)
	assert.Equal(t, "pe-f-d6 [AS: strong]", hybrid.Name())
}

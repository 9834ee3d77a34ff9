package mediq

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
	"arew/tasks/taskstest"
)

// The hybrid evaluation (tasks.ScriptedTurns) keeps MediQ's token stream
// and measures: the strong policy's questions with random beliefs keep the
// strong questions' I_AS.
func TestScriptedTurns(t *testing.T) {
	cfg := DefaultConfig()
	task, err := New("mediq", cfg)
	require.NoError(t, err)
	strongSpec := tasks.PolicySpec{Kind: "strong"}
	hybrid := taskstest.CheckScriptedTurns(t, task, strongSpec, tasks.AS, tasks.PolicySpec{Kind: "random"}, 60, 2*cfg.Rounds)
	strong, err := task.Scripted(strongSpec)
	require.NoError(t, err)
	want, err := tasks.Evaluate(task, strong, tasks.Val, 60, 7, 2*cfg.Rounds)
	require.NoError(t, err)
	assert.InDelta(t, want.IAS, hybrid.IAS, 0.05)
	taskstest.CheckScriptedTurns(t, task, strongSpec, tasks.BT, tasks.PolicySpec{Kind: "random"}, 20, 2*cfg.Rounds)
}

package flodial

import (
	"testing"

	"arew/tasks"
	"arew/tasks/taskstest"
)

// The hybrid evaluation (tasks.ScriptedTurns) keeps FloDial's token stream
// and measures, on both settings and both layouts.
func TestSharedScriptedTurns(t *testing.T) {
	echo := EasyConfig()
	echo.Echo = true
	for name, cfg := range map[string]Config{"flodial-easy": echo, "flodial-hard": HardConfig()} {
		task, err := New(name, cfg)
		if err != nil {
			t.Fatal(err)
		}
		taskstest.CheckScriptedTurns(t, task, tasks.PolicySpec{Kind: "strong"}, tasks.AS, tasks.PolicySpec{Kind: "random"}, 30, 2*cfg.Rounds)
		taskstest.CheckScriptedTurns(t, task, tasks.PolicySpec{Kind: "strong"}, tasks.BT, tasks.PolicySpec{Kind: "weak", QAS: 0.5, QBT: 0.5}, 30, 2*cfg.Rounds)
	}
}

package flodial

import (
	"testing"

	"arew/tasks/taskstest"
)

// FloDial's locked demonstrator keeps the limits every task's does
// (taskstest.CheckLocked): held beliefs, questions that split C only when
// no other is left (at most 6% of them), and locked(1, 1) as strong.
func TestSharedLocked(t *testing.T) {
	cfg := EasyConfig()
	cfg.Critiques = "consistent"
	task, err := New("flodial-easy", cfg)
	if err != nil {
		t.Fatal(err)
	}
	locked, skilled, strong := taskstest.CheckLocked(t, task, 300, 2*cfg.Rounds, 0.06, 0.06)
	t.Logf("locked(0,0) %+v\nlocked(1,1) %+v\nstrong %+v", locked, skilled, strong)
}

// FloDial's styles are the shared ones, under both layouts.
func TestSharedStyles(t *testing.T) {
	taskstest.CheckStyles(t, "flodial-easy", map[string]any{"Echo": true})
	taskstest.CheckStyles(t, "flodial-hard", nil)
}

package alfworld

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"arew/tasks/textworld"
	"arew/tasks/textworld/textworldtest"
)

// TestExpertRecovers: after 1–8 random admissible actions the planner,
// replanning from wherever they led, still reaches the goal with admissible
// actions only (nothing in the household is irreversible).
func TestExpertRecovers(t *testing.T) {
	w := world(t)
	tested, _ := textworldtest.Recoveries(t, w.Env(textworld.TestOOD), 134, func(e textworld.Env, game int) {
		t.Errorf("game %v: the expert failed after the random prefix", game)
	})
	assert.Greater(t, tested, 134)
}

package sciworld

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"arew/tasks/textworld"
	"arew/tasks/textworld/textworldtest"
)

// TestExpertRecovers: after 1–8 random admissible actions the planner,
// replanning from wherever they led, still reaches the goal with admissible
// actions only, unless the step cap runs out first or the random
// actions made the task impossible (Stuck).
func TestExpertRecovers(t *testing.T) {
	w := lab(t)
	tested, _ := textworldtest.Recoveries(t, w.Env(textworld.Test), 100, func(e textworld.Env, game int) {
		assert.True(t, e.(*Env).Stuck() || e.Steps() == e.MaxSteps(), "game %v failed with budget left", game)
	})
	assert.Greater(t, tested, 50)
}

package sciworld

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks/textworld"
)

// TestExpertRecovers: after 1–8 random admissible actions the planner,
// replanning from wherever they led, still reaches the goal with admissible
// actions only, unless the step cap runs out first or the random
// actions made the task impossible (Stuck).
func TestExpertRecovers(t *testing.T) {
	w := lab(t)
	rng := rand.New(rand.NewPCG(11, 12))
	tested, solved := 0, 0
	for rep := 0; rep < 3; rep++ {
		for i := 0; i < 100; i++ {
			e, err := w.NewEnv(textworld.Test, i)
			require.NoError(t, err)
			r, err := textworld.CheckRecovery(e, 1+rng.IntN(8), rng)
			require.NoError(t, err, "game %d", i)
			if !r.Tested {
				continue
			}
			tested++
			if r.Success {
				solved++
			}
			if !r.Success {
				assert.True(t, e.Stuck() || e.Steps() == e.MaxSteps(), "game %v failed with budget left", i)
			}
		}
	}
	t.Logf("%d recoveries tested, %d solved", tested, solved)
	assert.Greater(t, tested, 50)
}

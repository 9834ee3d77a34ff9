package act

import (
	"arew/rl/run"
	"testing"

	"github.com/stretchr/testify/assert"
)

// An ordering is paired by seed, and a tie at zero (both rows 0: nothing
// was measured) never counts as holding, on a seed or on the mean.
func TestOrderingsArePairedAndIgnoreZeroTies(t *testing.T) {
	nums := func(xs ...float64) []run.Num {
		out := make([]run.Num, len(xs))
		for i, x := range xs {
			out[i] = run.Num(x)
		}
		return out
	}
	o := diff("zeros", 1, nums(0, 0, 0), nums(0, 0, 0), false)
	assert.False(t, o.Holds, "0 ≥ 0 everywhere is not a result")
	assert.Equal(t, 0, o.Seeds)
	assert.Equal(t, 3, o.Of)

	o = diff("equal, measured", 1, nums(30, 30), nums(30, 30), false)
	assert.True(t, o.Holds)
	assert.Equal(t, 2, o.Seeds)

	o = diff("one seed measured", 1, nums(10, 0, 4), nums(5, 0, 6), false)
	assert.Equal(t, nums(5, 0, -2), o.PerSeed)
	assert.Equal(t, 1, o.Seeds, "the gain counts, the zero tie and the loss do not")
	assert.InDelta(t, 1, float64(o.Ours), 1e-12)
	assert.True(t, o.Holds)

	o = diff("strict", 1, nums(3, 3), nums(3, 3), true)
	assert.False(t, o.Holds)
}

package telecom

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
	"arew/tasks/taskstest"
)

// The shared promises (taskstest.CheckLocked) under the consistent
// critique: locked(0, 0) is well formed and locked(1, 1) is the strong
// policy. Its +1 turns are not reads (TestLockedMoves) but the constant
// writes that happen to be needed repairs, about 8% of its turns.
func TestLocked(t *testing.T) {
	for _, s := range []string{"solo", "dual"} {
		cfg := DefaultConfig()
		cfg.Critiques = "consistent"
		task, err := New(s, cfg)
		require.NoError(t, err)
		locked, skilled, strong := taskstest.CheckLocked(t, task, 300, cfg.MaxTurns+1, 0.1, 0)
		assert.Equal(t, strong.Success, skilled.Success, s)
		assert.Equal(t, strong.IAS, skilled.IAS, s)
		assert.Equal(t, strong.Extra, skilled.Extra, s)
		assert.Less(t, locked.IAS, 0.15, s)
	}
}

// locked(0, 0) reads lockedReads times with reads whose reply splits
// nothing (−1 under the consistent critique), then plays the best
// constant sequence, which ends with its close: it succeeds exactly where
// the constant policy does.
func TestLockedMoves(t *testing.T) {
	for _, s := range []string{"solo", "dual"} {
		cfg := DefaultConfig()
		cfg.Critiques = "consistent"
		task, err := New(s, cfg)
		require.NoError(t, err)
		lock, err := task.Scripted(tasks.PolicySpec{Kind: "locked"})
		require.NoError(t, err)
		seq := task.constantSequence()
		for i := range 200 {
			ep, err := task.NewEpisode(tasks.Val, i)
			require.NoError(t, err)
			m, err := tasks.Play(ep, lock, rand.New(rand.NewPCG(1, uint64(i))), cfg.MaxTurns)
			require.NoError(t, err)
			steps := ep.Steps()
			require.True(t, seq[len(seq)-1].close())
			require.Len(t, steps, lockedReads+len(seq), "%s %d", s, i)
			e := ep.(*Episode)
			for k, st := range steps {
				switch {
				case k < lockedReads:
					assert.Equal(t, int8(-1), st.Z, "%s %d: read %d splits nothing", s, i, k)
				default:
					assert.Contains(t, st.Text, seq[k-lockedReads].String(), "%s %d", s, i)
				}
			}
			c, _, err := task.instance(tasks.Val, i)
			require.NoError(t, err)
			assert.Equal(t, constantSucceeds(c, seq), m.Success, "%s %d", s, i)
			assert.Equal(t, e.stats.Turns, len(steps))
		}
	}
}

package rl

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
)

// NewBatchInto, packing batch after batch of other sizes into one batch's
// memory, gives exactly NewBatch's batch each time: no value of an earlier
// batch survives (masks, rewards, steps, groups).
func TestNewBatchIntoMatchesNewBatch(t *testing.T) {
	sets := []struct {
		name  string
		trajs []*Trajectory
	}{
		{"three", []*Trajectory{
			episode(3, 1, 0, turn{2, 2, tasks.AS, 1}, turn{3, 0, tasks.BT, -1}),
			episode(2, 0, 1, turn{4, 1, tasks.AS, 0}),
			episode(5, 0.5, 0, turn{1, 3, tasks.BT, 1}, turn{1, 1, tasks.AS, -1}, turn{2, 0, tasks.BT, 0}),
		}},
		{"one, shorter", []*Trajectory{episode(2, 1, 4, turn{1, 0, tasks.AS, 1})}},
		{"four, longer", []*Trajectory{
			episode(6, 0, 2, turn{5, 4, tasks.AS, -1}, turn{6, 0, tasks.BT, 1}),
			episode(6, 1, 2, turn{5, 4, tasks.AS, 1}, turn{6, 0, tasks.BT, 1}),
			episode(1, 0, 3, turn{2, 2, tasks.BT, 0}),
			episode(4, 1, 5, turn{3, 0, tasks.AS, 1}),
		}},
	}
	var prev *Batch
	for _, s := range sets {
		want, err := NewBatch(s.trajs)
		require.NoError(t, err, s.name)
		got, err := NewBatchInto(prev, s.trajs)
		require.NoError(t, err, s.name)
		if prev != nil {
			assert.Same(t, prev, got, s.name)
		}
		assert.Equal(t, want, got, s.name)
		got.Adv[0], got.Returns[0], got.Values[0] = 9, 9, 9 // as Advantages and prepare would fill them
		prev = got
	}
}

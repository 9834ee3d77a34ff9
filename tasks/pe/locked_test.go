package pe

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
	"arew/tasks/taskstest"
)

// PE's locked demonstrator, in every setting: with its knobs at 0 no query
// splits C (a dominated one is always left), so I_AS is 0, and the flat
// guess held gives C_BT 0 and a success below the best constant's; with
// both at 1 it is the strong policy, exactly (PE's strong moves draw
// nothing); with the base's knobs its queries are less informative than
// random ones.
func TestLocked(t *testing.T) {
	for _, name := range []string{"pe-g-s2", "pe-g-s3", "pe-f-d6", "pe-f-d8"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // each setting its own task: four independent simulations
			task, err := tasks.New(name, json.RawMessage(`{"Critiques": "consistent"}`))
			require.NoError(t, err)
			limit := task.(*Task).TurnLimit()
			locked, skilled, strong := taskstest.CheckLocked(t, task, 60, limit, 0, 0)
			assert.Zero(t, locked.IAS)
			assert.Zero(t, locked.CBT)
			_, best, err := task.BestConstant(tasks.Val, 60)
			require.NoError(t, err)
			assert.LessOrEqual(t, locked.Success, best)
			assert.Equal(t, strong, skilled)

			random, err := task.Scripted(tasks.PolicySpec{Kind: "random"})
			require.NoError(t, err)
			leaky, err := task.Scripted(tasks.PolicySpec{Kind: "locked", QAS: 0.03, QBT: 0.02})
			require.NoError(t, err)
			r, err := tasks.Evaluate(task, random, tasks.Val, 100, 3, limit)
			require.NoError(t, err)
			l, err := tasks.Evaluate(task, leaky, tasks.Val, 100, 3, limit)
			require.NoError(t, err)
			assert.Less(t, l.ASProxy, r.ASProxy, fmt.Sprintf("%s: locked(0.03,0.02) %+v\nrandom %+v", leaky.Name(), l, r))
			assert.Less(t, l.IAS, r.IAS)
			assert.Zero(t, l.Malformed)
		})
	}
}

// A locked query never splits C when it is not broken: the consistent set
// keeps its size through a locked(0, 0) episode, query after query.
func TestLockedQueryNeverSplits(t *testing.T) {
	task, err := tasks.New("pe-f-d8", nil)
	require.NoError(t, err)
	pol, err := task.Scripted(tasks.PolicySpec{Kind: "locked"})
	require.NoError(t, err)
	for i := range 20 {
		ep, err := task.NewEpisode(tasks.Train, i)
		require.NoError(t, err)
		e := ep.(*Episode)
		n := e.ConsistentSize()
		require.True(t, e.hyp.allPositive())
		rng := rand.New(rand.NewPCG(uint64(i), 3))
		for !ep.Done() {
			a, err := pol.Act(ep, rng)
			require.NoError(t, err)
			_, _, err = ep.Step(a)
			require.NoError(t, err)
			assert.Equal(t, n, e.ConsistentSize())
		}
	}
}

// PE's styles are the shared ones, in PE-G and PE-F.
func TestStyles(t *testing.T) {
	taskstest.CheckStyles(t, "pe-g-s2", nil)
	taskstest.CheckStyles(t, "pe-f-d8", map[string]any{"Critiques": "consistent"})
}

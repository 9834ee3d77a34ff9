package mediq

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
	"arew/tasks/taskstest"
)

// MediQ's locked demonstrator: with its knobs at 0 no finding it asks
// splits C (a finding pertinent to none of the options is always left),
// so I_AS is 0, and its held flat belief leaves C_BT at 0 until the final
// answer; with both at 1 it plays the strong policy's moves; with the
// base's knobs it asks less informative questions than random ones and
// scores no better than the best constant answer + 0.03.
func TestLocked(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Critiques = "consistent"
	task, err := New("mediq", cfg)
	require.NoError(t, err)
	turns := 2 * cfg.Rounds
	locked, skilled, strong := taskstest.CheckLocked(t, task, 400, turns, 0, 0.06)
	t.Logf("locked(0,0) %+v\nlocked(1,1) %+v\nstrong %+v", locked, skilled, strong)
	assert.InDelta(t, 0, locked.IAS, 1e-12, "a finding pertinent to no option moves the posterior by rounding only")
	_, best, err := task.BestConstant(tasks.Val, 400)
	require.NoError(t, err)
	assert.LessOrEqual(t, locked.Success, best+0.03)

	random, err := task.Scripted(tasks.PolicySpec{Kind: "random"})
	require.NoError(t, err)
	leaky, err := task.Scripted(tasks.PolicySpec{Kind: "locked", QAS: 0.03, QBT: 0.02})
	require.NoError(t, err)
	r, err := tasks.Evaluate(task, random, tasks.Val, 400, 3, turns)
	require.NoError(t, err)
	l, err := tasks.Evaluate(task, leaky, tasks.Val, 400, 3, turns)
	require.NoError(t, err)
	t.Logf("random %+v\nlocked(0.03,0.02) %+v", r, l)
	assert.Less(t, l.ASProxy, r.ASProxy)
	assert.Less(t, l.IAS, r.IAS)
	assert.Less(t, l.Success, best+0.03)
	assert.Zero(t, l.Malformed)
}

// A locked belief is held: the same tokens every round, the counterfactual
// equal to the real part, and a final answer with a unique top on A.
func TestLockedBelief(t *testing.T) {
	task, err := New("mediq", DefaultConfig())
	require.NoError(t, err)
	stream := taskstest.Stream(t, task, tasks.PolicySpec{Kind: "locked"}, tasks.Test, 1, 7)
	flat := task.vocab.Decode(append(append(task.levels.Encode([]int{9, 9, 9, 9}), task.cf), task.levels.Encode([]int{9, 9, 9, 9})...))
	final := task.vocab.Decode(append(append(task.levels.Encode([]int{9, 8, 8, 8}), task.cf), task.levels.Encode([]int{9, 8, 8, 8})...))
	text := task.vocab.Decode(stream)
	assert.Contains(t, text, flat+" <eot>")
	assert.Contains(t, text, final+" <eot>")
}

// MediQ's styles are the shared ones.
func TestStyles(t *testing.T) {
	taskstest.CheckStyles(t, "mediq", nil)
}

package rl

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
)

// rows lays each trajectory's predictions at the start of its row and
// leaves the rest, and every unused row, as padding: token Pad predicting
// Pad, mask 0, zero inputs.
func TestRowsLayout(t *testing.T) {
	a := episode(2, 1, 0, turn{2, 1, tasks.AS, 1}, turn{1, 0, tasks.BT, -1}) // 6 tokens, 5 predictions
	c := episode(1, 0, 1, turn{1, 0, tasks.BT, 1})                           // 2 tokens, 1 prediction
	b, err := NewBatch([]*Trajectory{a, c})
	require.NoError(t, err)
	for i := range b.Adv {
		b.Adv[i], b.Returns[i], b.Values[i] = float32(i), float32(10+i), float32(20+i)
	}
	r := newRows(3, 6)
	require.NoError(t, r.load(b, []int{1, 0}, nil))
	assert.Equal(t, []int{1, 0, -1}, r.traj)
	assert.Equal(t, []int32{0, 6, 12, 18}, r.packed.Offsets)
	// Row 0: trajectory c (prediction 5 of the batch), row 1: a (0..4).
	assert.Equal(t, []uint8{1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0}, r.packed.Mask)
	assert.Equal(t, c.Tokens[:1], r.tokens[0:1])
	assert.Equal(t, a.Tokens[:5], r.tokens[6:11])
	assert.Equal(t, a.Tokens[1:], r.targets[6:11])
	assert.Equal(t, make([]int32, 7), append(r.tokens[11:12], r.tokens[12:]...))
	assert.Equal(t, 5.0, r.adv[0])
	assert.Equal(t, []float64{0, 1, 2, 3, 4, 0}, r.adv[6:12])
	assert.Equal(t, 11.0, r.returns[7])
	assert.Equal(t, 24.0, r.oldValues[10])

	// scatter is load's inverse for the loaded rows.
	out := make([]float32, b.NumTokens())
	src := make([]float32, 18)
	for i := range src {
		src[i] = float32(100 + i)
	}
	r.scatter(b, src, out, true)
	assert.Equal(t, []float32{0, 107, 108, 0, 110, 100}, out)

	assert.Error(t, r.load(b, []int{0, 1, 0, 1}, nil), "more trajectories than rows")
	assert.ErrorContains(t, newRows(2, 4).load(b, []int{0}, nil), "predictions")
}

// A partial minibatch in a larger graph: the empty rows change neither the
// loss nor the gradient (their mask is 0 and the rows are independent), so
// the last minibatch of an epoch reuses the graph.
func TestPaddingRowsChangeNothing(t *testing.T) {
	task := flodialEasy(t)
	trajs, _ := play(t, tinyPolicy(t, task, 30, false), task, DefaultRolloutConfig(), trainSpecs(2, 1), 4, 0)
	b, err := NewBatch(trajs)
	require.NoError(t, err)
	for i := range b.Adv {
		b.Adv[i] = float32(math.Sin(float64(i)))
	}
	pc := DefaultPolicy()
	pc.EntropyCoef = 0.01
	run := func(B int) (float64, [][]float32) {
		m := tinyPolicy(t, task, 31, false)
		r := newRows(B, task.MaxTokens()-1)
		a, err := newActorGraph(m, r, pc, AlgoPPO, nil, 0)
		require.NoError(t, err)
		defer a.g.Close()
		require.NoError(t, r.load(b, []int{0, 1}, nil))
		require.NoError(t, setInputs(a.g, r))
		require.NoError(t, a.g.Run())
		m.Params.ZeroGrad()
		require.NoError(t, a.g.AccumulateGrads())
		var grads [][]float32
		for _, p := range m.Params.Params() {
			grads = append(grads, append([]float32(nil), p.Grad...))
		}
		return a.pol.Loss, grads
	}
	l2, g2 := run(2)
	l5, g5 := run(5)
	assert.Equal(t, l2, l5)
	worst := 0.0
	for k := range g2 {
		for i := range g2[k] {
			d := math.Abs(float64(g2[k][i] - g5[k][i]))
			worst = math.Max(worst, d/(1e-3+math.Abs(float64(g2[k][i]))))
		}
	}
	t.Logf("largest relative gradient difference %.2g", worst)
	assert.Less(t, worst, 1e-4)
}

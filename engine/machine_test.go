package engine

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// machineGraph is a two-layer MLP with a residual add and both matmul
// transposes in its backward: loss = Σ (x + GELU(x·W1 + b)·W2)², with
// gradients for W1, b, W2.
func machineGraph(t *testing.T, rng *rand.Rand) (g *G.ExprGraph, loss *G.Node, params []*tensor.Dense, grads G.Nodes) {
	t.Helper()
	rnd := func(shape ...int) *tensor.Dense {
		d := make([]float32, tensor.Shape(shape).TotalSize())
		for i := range d {
			d[i] = float32(rng.NormFloat64())
		}
		return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(d))
	}
	g = G.NewGraph()
	params = []*tensor.Dense{rnd(8, 6), rnd(6), rnd(6, 8)}
	x := G.NodeFromAny(g, rnd(5, 8), G.WithName("x"))
	var ps G.Nodes
	for i, p := range params {
		ps = append(ps, G.NodeFromAny(g, p, G.WithName([]string{"w1", "b", "w2"}[i])))
	}
	h, err := G.Mul(x, ps[0])
	require.NoError(t, err)
	h, err = AddBias(h, ps[1])
	require.NoError(t, err)
	h, err = GELU(h)
	require.NoError(t, err)
	h, err = G.Mul(h, ps[2])
	require.NoError(t, err)
	h, err = G.Add(x, h)
	require.NoError(t, err)
	sq, err := G.Square(h)
	require.NoError(t, err)
	loss, err = G.Sum(sq)
	require.NoError(t, err)
	grads, err = G.Grad(loss, ps...)
	require.NoError(t, err)
	return g, loss, params, grads
}

// A Machine that keeps its matmul outputs gives, run after run with the
// weights changing in between, bitwise the loss and gradients of a fresh
// tape machine on the same graph — and it does keep them on this gorgonia.
func TestMachineReuseMatchesFreshRuns(t *testing.T) {
	g, loss, params, grads := machineGraph(t, rand.New(rand.NewPCG(1, 2)))
	m, err := NewMachine(g)
	require.NoError(t, err)
	defer m.Close()
	require.True(t, m.Reusing(), "the reflection no longer finds gorgonia's tape machine state")
	require.NotEmpty(t, m.slots)
	require.Positive(t, m.binOps, "no elementwise instruction found to keep the output of")
	require.NotNil(t, m.tape, "the program is no longer one the machine runs itself")
	snapshot := func() (float32, [][]float32) {
		var gs [][]float32
		for _, n := range grads {
			gs = append(gs, append([]float32(nil), n.Value().Data().([]float32)...))
		}
		return loss.Value().Data().(float32), gs
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for run := range 4 {
		require.NoError(t, m.Run())
		gotLoss, gotGrads := snapshot()
		fresh := G.NewTapeMachine(g)
		require.NoError(t, fresh.RunAll())
		wantLoss, wantGrads := snapshot()
		require.NoError(t, fresh.Close())
		assert.Equal(t, wantLoss, gotLoss, "run %d", run)
		assert.Equal(t, wantGrads, gotGrads, "run %d", run)
		for _, p := range params { // the next run sees new weights
			for i, v := range p.Float32s() {
				p.Float32s()[i] = v + float32(0.1*rng.NormFloat64())
			}
		}
	}
	kept := 0
	for _, s := range m.slots {
		if s.kept != nil {
			kept++
		}
	}
	assert.Positive(t, kept, "no matmul output was kept")
}

// After its first run, a Machine's run allocates only what the ops
// themselves allocate (gorgonia's Sum and Square here), not per
// instruction.
func TestMachineRunAllocations(t *testing.T) {
	g, _, _, _ := machineGraph(t, rand.New(rand.NewPCG(1, 2)))
	m, err := NewMachine(g)
	require.NoError(t, err)
	defer m.Close()
	require.NoError(t, m.Run())
	allocs := testing.AllocsPerRun(10, func() { require.NoError(t, m.Run()) })
	t.Logf("%v allocations per run", allocs)
}

func TestMachineCompileErrorIsAnError(t *testing.T) {
	g := G.NewGraph()
	a := G.NewMatrix(g, tensor.Float32, G.WithShape(2, 3), G.WithName("a")) // no value: cannot run
	_, err := G.Sum(a)
	require.NoError(t, err)
	m, err := NewMachine(g)
	if err == nil {
		defer m.Close()
		assert.Error(t, m.Run())
	}
}

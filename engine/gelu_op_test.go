package engine

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"arew/kernels"
)

func TestGELUOpGradCheck(t *testing.T) {
	for _, shape := range [][]int{{7}, {3, 5}, {2, 3, 4}} {
		rng := rand.New(rand.NewPCG(41, uint64(len(shape))))
		x := opsTensor(rng, 0, 2, shape...)
		res, err := GradCheck([]*tensor.Dense{x}, func(g *G.ExprGraph, xs G.Nodes) (*G.Node, error) {
			y, err := GELU(xs[0])
			if err != nil {
				return nil, err
			}
			return weightedSumSeeded(g, y, 3)
		}, 1e-2, 1)
		require.NoError(t, err)
		t.Logf("%v: max abs err %.2e, max rel err %.2e", shape, res.MaxAbsErr, res.MaxRelErr)
		assert.Less(t, res.MaxRelErr, 1e-3, "%v: %s", shape, res.Where)
	}
}

// Built once, run twice with new input values: the second run is right.
func TestGELUOpSecondRunUsesNewInputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 1))
	x := opsTensor(rng, 0, 2, 4, 6)
	g := G.NewGraph()
	xn := G.NodeFromAny(g, x, G.WithName("x"))
	y, err := GELU(xn)
	require.NoError(t, err)
	loss, err := weightedSumSeeded(g, y, 4)
	require.NoError(t, err)
	_, err = G.Grad(loss, xn)
	require.NoError(t, err)
	m := G.NewTapeMachine(g)
	defer m.Close()
	w := opsTensor(rand.New(rand.NewPCG(4, 99)), 0, 1, 4, 6).Float32s()
	for run := range 2 {
		copy(x.Float32s(), opsTensor(rng, float64(run), 3, 4, 6).Float32s())
		m.Reset()
		require.NoError(t, m.RunAll())
		wantY, wantDx := make([]float32, 24), make([]float32, 24)
		require.NoError(t, kernels.GELUForwardRef(x.Float32s(), wantY))
		require.NoError(t, kernels.GELUBackwardRef(x.Float32s(), w, wantDx))
		assert.InDeltaSlice(t, wantY, y.Value().Data(), 1e-5, "run %d", run)
		dx, err := xn.Grad()
		require.NoError(t, err)
		assert.InDeltaSlice(t, wantDx, dx.Data(), 1e-5, "run %d", run)
	}
}

func TestGELUOpRejectsBadInput(t *testing.T) {
	g := G.NewGraph()
	_, err := GELU(G.NewMatrix(g, tensor.Float64, G.WithShape(2, 3), G.WithName("x64")))
	assert.ErrorContains(t, err, "float32")
	_, err = GELU(nil)
	assert.ErrorContains(t, err, "nil")
}

// The forward that keeps its exponentials and the backward that reads
// them give kernels.GELUForward's and GELUBackward's bits, run after run
// on new inputs, through the engine's machine.
func TestGELUOpIsTheKernelsBitwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 1))
	x := opsTensor(rng, 0, 2, 64, 37)
	g := G.NewGraph()
	xn := G.NodeFromAny(g, x, G.WithName("x"))
	y, err := GELU(xn)
	require.NoError(t, err)
	loss, err := weightedSumSeeded(g, y, 5)
	require.NoError(t, err)
	grads, err := G.Grad(loss, xn)
	require.NoError(t, err)
	m, err := NewMachine(g)
	require.NoError(t, err)
	defer m.Close()
	w := opsTensor(rand.New(rand.NewPCG(5, 99)), 0, 1, 64, 37).Float32s()
	for run := range 3 {
		copy(x.Float32s(), opsTensor(rng, float64(run), 3, 64, 37).Float32s())
		require.NoError(t, m.Run())
		wantY, wantDx := make([]float32, x.Size()), make([]float32, x.Size())
		require.NoError(t, kernels.GELUForward(x.Float32s(), wantY))
		require.NoError(t, kernels.GELUBackward(x.Float32s(), w, wantDx))
		assert.Equal(t, wantY, y.Value().Data(), "run %d", run)
		assert.Equal(t, wantDx, grads[0].Value().Data(), "run %d", run)
	}
}

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

func TestLayerNormOpGradCheck(t *testing.T) {
	for _, tc := range []struct {
		name   string
		n, c   int
		offset float64
	}{
		{"3x5", 3, 5, 0},
		{"c=1", 2, 1, 0},
		{"4x9 offset", 4, 9, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(31, uint64(tc.n*100+tc.c)))
			inputs := []*tensor.Dense{
				opsTensor(rng, tc.offset, 1, tc.n, tc.c),
				opsTensor(rng, 1, 0.5, tc.c),
				opsTensor(rng, 0, 0.5, tc.c),
			}
			res, err := GradCheck(inputs, func(g *G.ExprGraph, xs G.Nodes) (*G.Node, error) {
				y, err := LayerNorm(xs[0], xs[1], xs[2], 1e-5)
				if err != nil {
					return nil, err
				}
				return weightedSumSeeded(g, y, 1)
			}, 1e-2, 1)
			require.NoError(t, err)
			t.Logf("max abs err %.2e, max rel err %.2e", res.MaxAbsErr, res.MaxRelErr)
			assert.Less(t, res.MaxRelErr, 1e-3, res.Where)
		})
	}
}

// The graph is built once and run twice with different inputs: the second
// run's value and gradients are those of the new inputs (the op-owned
// mean/rstd and buffers are refreshed, not stale), and the output buffer is
// the same memory both times. A Reshape after the op, which gorgonia may
// apply in place to the op's buffer, does not break the reuse.
func TestLayerNormOpSecondRunUsesNewInputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 1))
	n, c := 5, 8
	x := opsTensor(rng, 0, 1, n, c)
	gain, bias := opsTensor(rng, 1, 0.3, c), opsTensor(rng, 0, 0.3, c)
	g := G.NewGraph()
	xn := G.NodeFromAny(g, x, G.WithName("x"))
	gn := G.NodeFromAny(g, gain, G.WithName("gain"))
	bn := G.NodeFromAny(g, bias, G.WithName("bias"))
	y, err := LayerNorm(xn, gn, bn, 1e-5)
	require.NoError(t, err)
	flat, err := G.Reshape(y, tensor.Shape{n * c})
	require.NoError(t, err)
	loss, err := weightedSumSeeded(g, flat, 2)
	require.NoError(t, err)
	_, err = G.Grad(loss, xn, gn, bn)
	require.NoError(t, err)
	m := G.NewTapeMachine(g)
	defer m.Close()

	w := opsTensor(rand.New(rand.NewPCG(2, 99)), 0, 1, n*c).Float32s()
	var first []float32
	for run := range 3 {
		if run > 0 {
			copy(x.Float32s(), opsTensor(rng, float64(run), 2, n, c).Float32s()) // new inputs, same memory
			gain.Float32s()[0] += 0.5
		}
		m.Reset()
		require.NoError(t, m.RunAll())

		wantY := make([]float32, n*c)
		mean, rstd := make([]float64, n), make([]float64, n)
		require.NoError(t, kernels.LayerNormForwardRef(x.Float32s(), n, c, gain.Float32s(), bias.Float32s(), 1e-5, wantY, mean, rstd))
		wantDx, wantDg, wantDb := make([]float32, n*c), make([]float32, c), make([]float32, c)
		require.NoError(t, kernels.LayerNormBackwardRef(x.Float32s(), n, c, gain.Float32s(), mean, rstd, w, wantDx, wantDg, wantDb))

		got := y.Value().(*tensor.Dense).Float32s()
		assert.InDeltaSlice(t, wantY, got, 1e-5, "run %d: y", run)
		for k, want := range [][]float32{wantDx, wantDg, wantDb} {
			gv, err := G.Nodes{xn, gn, bn}[k].Grad()
			require.NoError(t, err)
			assert.InDeltaSlice(t, want, gv.Data(), 1e-5, "run %d: grad of input %d", run, k)
		}
		if run == 0 {
			first = got
		} else {
			assert.Same(t, &first[0], &got[0], "run %d: the output buffer is reused", run)
		}
	}
}

func TestLayerNormOpRejectsBadInput(t *testing.T) {
	g := G.NewGraph()
	x := G.NewMatrix(g, tensor.Float32, G.WithShape(2, 3), G.WithName("x"))
	x64 := G.NewMatrix(g, tensor.Float64, G.WithShape(2, 3), G.WithName("x64"))
	v3 := G.NewVector(g, tensor.Float32, G.WithShape(3), G.WithName("v3"))
	v4 := G.NewVector(g, tensor.Float32, G.WithShape(4), G.WithName("v4"))
	_, err := LayerNorm(x64, v3, v3, 1e-5)
	assert.ErrorContains(t, err, "float32")
	_, err = LayerNorm(x, v4, v3, 1e-5)
	assert.ErrorContains(t, err, "gain and bias")
	_, err = LayerNorm(v3, v3, v3, 1e-5)
	assert.ErrorContains(t, err, "rank")
	_, err = LayerNorm(x, v3, v3, 0)
	assert.ErrorContains(t, err, "eps")
	_, err = LayerNorm(x, nil, v3, 1e-5)
	assert.ErrorContains(t, err, "nil")
}

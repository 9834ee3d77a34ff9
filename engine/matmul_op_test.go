package engine

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// MatMul's value and both gradients are bitwise G.Mul's on FastBLAS, for
// the model's shapes and odd ones: a value head (N = 1), a single row
// (M = 1), K past one Sgemm panel (256), sizes that are no multiple of any
// tile.
func TestMatMulMatchesGorgoniaBitwise(t *testing.T) {
	UseFastBLAS()
	cases := []struct{ m, k, n int }{
		{37, 64, 192}, {2368, 64, 256}, {300, 256, 64}, {50, 64, 1}, {1, 64, 27}, {7, 300, 13}, {3, 1, 5},
	}
	for _, c := range cases {
		rng := rand.New(rand.NewPCG(uint64(c.m), uint64(c.n)))
		a, b := opsTensor(rng, 0, 1, c.m, c.k), opsTensor(rng, 0, 1, c.k, c.n)
		run := func(mul func(x, y *G.Node) (*G.Node, error)) [][]float32 {
			g := G.NewGraph()
			x := G.NodeFromAny(g, a.Clone().(*tensor.Dense), G.WithName("a"))
			y := G.NodeFromAny(g, b.Clone().(*tensor.Dense), G.WithName("b"))
			z, err := mul(x, y)
			require.NoError(t, err)
			loss, err := weightedSumSeeded(g, z, 3)
			require.NoError(t, err)
			grads, err := G.Grad(loss, x, y)
			require.NoError(t, err)
			m, err := NewMachine(g)
			require.NoError(t, err)
			defer m.Close()
			var out [][]float32
			for range 2 { // the second run reuses the outputs
				require.NoError(t, m.Run())
				out = out[:0]
				for _, n := range append(G.Nodes{z}, grads...) {
					out = append(out, append([]float32(nil), n.Value().Data().([]float32)...))
				}
			}
			return out
		}
		want, got := run(G.Mul), run(MatMul)
		for i, what := range []string{"c", "da", "db"} {
			assert.Equal(t, want[i], got[i], "%dx%dx%d: %s", c.m, c.k, c.n, what)
		}
	}
}

func TestMatMulGradCheck(t *testing.T) {
	rng := rand.New(rand.NewPCG(72, 1))
	a, b := opsTensor(rng, 0, 1, 4, 3), opsTensor(rng, 0, 1, 3, 5)
	res, err := GradCheck([]*tensor.Dense{a, b}, func(g *G.ExprGraph, xs G.Nodes) (*G.Node, error) {
		y, err := MatMul(xs[0], xs[1])
		if err != nil {
			return nil, err
		}
		return weightedSumSeeded(g, y, 9)
	}, 1e-2, 1)
	require.NoError(t, err)
	assert.Less(t, res.MaxRelErr, 1e-3, res.Where)
}

// c = a·b by hand, and the shape errors.
func TestMatMulValuesAndBadInput(t *testing.T) {
	g := G.NewGraph()
	a := G.NodeFromAny(g, tensor.New(tensor.WithShape(2, 3), tensor.WithBacking([]float32{1, 2, 3, 4, 5, 6})), G.WithName("a"))
	b := G.NodeFromAny(g, tensor.New(tensor.WithShape(3, 1), tensor.WithBacking([]float32{1, 0, -1})), G.WithName("b"))
	c, err := MatMul(a, b)
	require.NoError(t, err)
	m := G.NewTapeMachine(g)
	defer m.Close()
	require.NoError(t, m.RunAll())
	assert.Equal(t, []float32{-2, -2}, c.Value().Data())

	for _, bad := range []struct {
		name string
		x, y *G.Node
	}{{"inner sizes differ", a, a}, {"nil", nil, b}, {"vector", b, G.NodeFromAny(g, tensor.New(tensor.WithShape(3), tensor.Of(tensor.Float32)), G.WithName("v"))}} {
		_, err := MatMul(bad.x, bad.y)
		assert.ErrorContains(t, err, "matmul: want a (M,K) and b (K,N)", bad.name)
	}
}

package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

func TestParamStoreInitIsPerNameDeterministic(t *testing.T) {
	a := NewParamStore()
	_, err := a.Add("w", []int{3, 4}, Normal(1))
	require.NoError(t, err)
	_, err = a.Add("b", []int{4}, Constant(0.5))
	require.NoError(t, err)
	a.Init(7)

	// A second store with an extra parameter added first: "w" must not change.
	b := NewParamStore()
	_, err = b.Add("extra", []int{5}, Normal(1))
	require.NoError(t, err)
	_, err = b.Add("w", []int{3, 4}, Normal(1))
	require.NoError(t, err)
	b.Init(7)

	wa, _ := a.Get("w")
	wb, _ := b.Get("w")
	assert.Equal(t, wa.Data(), wb.Data())
	ba, _ := a.Get("b")
	assert.Equal(t, []float32{0.5, 0.5, 0.5, 0.5}, ba.Data())
	assert.Equal(t, 16, a.NumParams())
}

func TestParamStoreRejectsBadInput(t *testing.T) {
	s := NewParamStore()
	_, err := s.Add("w", []int{2}, nil)
	require.NoError(t, err)
	_, err = s.Add("w", []int{2}, nil)
	assert.ErrorContains(t, err, "duplicate")
	_, err = s.Add("z", []int{0, 2}, nil)
	assert.ErrorContains(t, err, "bad shape")
	_, err = s.Add("e", nil, nil)
	assert.ErrorContains(t, err, "empty shape")
}

// The graph reads the parameter's own memory, and gradients accumulate
// across runs until ZeroGrad.
func TestBindSharesMemoryAndAccumulates(t *testing.T) {
	s := NewParamStore()
	w, err := s.Add("w", []int{2, 2}, Constant(1))
	require.NoError(t, err)
	s.Init(1)

	g := G.NewGraph()
	b := s.Bind(g)
	wn, err := b.Node("w")
	require.NoError(t, err)
	x := G.NewMatrix(g, tensor.Float32, G.WithShape(2, 2), G.WithName("x"))
	loss := G.Must(G.Sum(G.Must(G.HadamardProd(x, wn))))
	_, err = G.Grad(loss, b.Nodes...)
	require.NoError(t, err)
	m := G.NewTapeMachine(g)
	defer m.Close()

	require.NoError(t, G.Let(x, tensor.New(tensor.WithShape(2, 2), tensor.WithBacking([]float32{1, 2, 3, 4}))))
	require.NoError(t, m.RunAll())
	assert.InDelta(t, 10.0, float64(loss.Value().Data().(float32)), 1e-6)
	require.NoError(t, b.AccumulateGrads())
	m.Reset()

	w.Data()[0] = 3 // an in-place update is seen by the next run
	require.NoError(t, m.RunAll())
	assert.InDelta(t, 12.0, float64(loss.Value().Data().(float32)), 1e-6)
	require.NoError(t, b.AccumulateGrads())
	assert.Equal(t, []float32{2, 4, 6, 8}, w.Grad)

	s.ZeroGrad()
	assert.Equal(t, []float32{0, 0, 0, 0}, w.Grad)
}

func TestGradCheckOnStockOps(t *testing.T) {
	// loss = Σ (x ⊙ y)², d/dx = 2·x·y², d/dy = 2·x²·y.
	x := tensor.New(tensor.WithShape(2, 3), tensor.WithBacking([]float32{0.5, -1, 2, 0.25, 1.5, -0.75}))
	y := tensor.New(tensor.WithShape(2, 3), tensor.WithBacking([]float32{1, 0.5, -0.5, 2, -1, 0.3}))
	res, err := GradCheck([]*tensor.Dense{x, y}, func(g *G.ExprGraph, xs G.Nodes) (*G.Node, error) {
		p, err := G.HadamardProd(xs[0], xs[1])
		if err != nil {
			return nil, err
		}
		return G.Sum(G.Must(G.Square(p)))
	}, 1e-3, 1)
	require.NoError(t, err)
	assert.Less(t, res.MaxRelErr, 1e-2, res.Where)

	// A loss that is not a scalar is an error, not a silent pass.
	_, err = GradCheck([]*tensor.Dense{x}, func(g *G.ExprGraph, xs G.Nodes) (*G.Node, error) {
		return G.Square(xs[0])
	}, 1e-3, 1)
	assert.Error(t, err)
}

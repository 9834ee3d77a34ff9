package engine

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

func idsTensor(ids ...int32) *tensor.Dense {
	return tensor.New(tensor.WithShape(len(ids)), tensor.WithBacking(ids))
}

// Finite differences w.r.t. wte and wpe, with repeated ids (the
// scatter-add must sum them), an unused token (zero gradient) and
// seqLen < P (position rows ≥ T get nothing).
func TestEmbeddingOpGradCheck(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 1))
	V, P, C, B, T := 5, 4, 3, 2, 3
	wte, wpe := opsTensor(rng, 0, 1, V, C), opsTensor(rng, 0, 1, P, C)
	ids := []int32{1, 3, 1, 0, 1, 3} // token 2 and 4 unused, 1 thrice
	res, err := GradCheck([]*tensor.Dense{wte, wpe}, func(g *G.ExprGraph, xs G.Nodes) (*G.Node, error) {
		idn := G.NodeFromAny(g, idsTensor(ids...), G.WithName("ids"))
		x, err := Embedding(xs[0], xs[1], idn, B, T)
		if err != nil {
			return nil, err
		}
		return weightedSumSeeded(g, x, 8)
	}, 1e-2, 1)
	require.NoError(t, err)
	t.Logf("max abs err %.2e, max rel err %.2e", res.MaxAbsErr, res.MaxRelErr)
	assert.Less(t, res.MaxRelErr, 1e-3, res.Where)
}

// Values worked by hand, and a second run on new ids (bound by the caller's
// tensor) recomputes forward and backward with them.
func TestEmbeddingOpHandValuesAndRerun(t *testing.T) {
	wte := tensor.New(tensor.WithShape(3, 2), tensor.WithBacking([]float32{1, 2, 10, 20, 100, 200}))
	wpe := tensor.New(tensor.WithShape(3, 2), tensor.WithBacking([]float32{0.1, 0.2, 0.3, 0.4, 0.5, 0.6}))
	ids := idsTensor(2, 0, 0, 0) // B=2, T=2
	g := G.NewGraph()
	en, pn := G.NodeFromAny(g, wte, G.WithName("wte")), G.NodeFromAny(g, wpe, G.WithName("wpe"))
	idn := G.NodeFromAny(g, ids, G.WithName("ids"))
	x, err := Embedding(en, pn, idn, 2, 2)
	require.NoError(t, err)
	w := G.NodeFromAny(g, tensor.New(tensor.WithShape(4, 2), tensor.WithBacking([]float32{1, 2, 3, 4, 5, 6, 7, 8})), G.WithName("w"))
	loss := G.Must(G.Sum(G.Must(G.HadamardProd(w, x))))
	_, err = G.Grad(loss, en, pn)
	require.NoError(t, err)
	m := G.NewTapeMachine(g)
	defer m.Close()
	require.NoError(t, m.RunAll())
	assert.InDeltaSlice(t, []float32{100.1, 200.2, 1.3, 2.4, 1.1, 2.2, 1.3, 2.4}, x.Value().Data(), 1e-5)
	dte, err := en.Grad()
	require.NoError(t, err)
	// token 0 at rows 1, 2, 3: w rows (3,4)+(5,6)+(7,8); token 2 at row 0.
	assert.Equal(t, []float32{15, 18, 0, 0, 1, 2}, dte.Data())
	dpe, err := pn.Grad()
	require.NoError(t, err)
	// position 0: rows 0, 2; position 1: rows 1, 3; position 2 unused.
	assert.Equal(t, []float32{6, 8, 10, 12, 0, 0}, dpe.Data())

	copy(ids.Int32s(), []int32{1, 1, 1, 1})
	m.Reset()
	require.NoError(t, m.RunAll())
	assert.InDeltaSlice(t, []float32{10.1, 20.2, 10.3, 20.4, 10.1, 20.2, 10.3, 20.4}, x.Value().Data(), 1e-5)
	dte, _ = en.Grad()
	assert.Equal(t, []float32{0, 0, 16, 20, 0, 0}, dte.Data())

	copy(ids.Int32s(), []int32{1, 3, 1, 1})
	m.Reset()
	assert.ErrorContains(t, m.RunAll(), "token id 3 at row 1 is outside [0, 3)")
}

func TestEmbeddingOpRejectsBadInput(t *testing.T) {
	g := G.NewGraph()
	wte := G.NewMatrix(g, tensor.Float32, G.WithShape(5, 4), G.WithName("wte"))
	wpe := G.NewMatrix(g, tensor.Float32, G.WithShape(3, 4), G.WithName("wpe"))
	wpe5 := G.NewMatrix(g, tensor.Float32, G.WithShape(3, 5), G.WithName("wpe5"))
	ids6 := G.NewVector(g, tensor.Int32, G.WithShape(6), G.WithName("ids6"))
	f6 := G.NewVector(g, tensor.Float32, G.WithShape(6), G.WithName("f6"))
	for _, tc := range []struct {
		name          string
		wte, wpe, ids *G.Node
		b, t          int
		errContains   string
	}{
		{"widths", wte, wpe5, ids6, 2, 3, "widths differ"},
		{"too long", wte, wpe, ids6, 1, 6, "exceeds"},
		{"ids length", wte, wpe, ids6, 3, 3, "ids has 6"},
		{"ids dtype", wte, wpe, f6, 2, 3, "int32"},
		{"zero batch", wte, wpe, ids6, 0, 3, "≥ 1"},
		{"nil", nil, wpe, ids6, 2, 3, "nil"},
	} {
		_, err := Embedding(tc.wte, tc.wpe, tc.ids, tc.b, tc.t)
		assert.ErrorContains(t, err, tc.errContains, tc.name)
	}
}

package engine

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// CopyReshape gives, forward and backward, bitwise what gorgonia's Reshape
// gives (−0, ±Inf, NaN included), run after run: L = Σ w ⊙ reshape(x).
func TestCopyReshapeMatchesReshape(t *testing.T) {
	nan, inf, negZero := float32(math.NaN()), float32(math.Inf(1)), float32(math.Copysign(0, -1))
	xs := []float32{1, -2, 3.5, negZero, 0, 1e-40}
	w := []float32{negZero, nan, -inf, 2, 0, 3}
	run := func(reshape func(x *G.Node, to tensor.Shape) (*G.Node, error)) (val, grad []uint32) {
		g := G.NewGraph()
		x := G.NodeFromAny(g, tensor.New(tensor.WithShape(6, 1), tensor.WithBacking(append([]float32(nil), xs...))), G.WithName("x"))
		wn := G.NodeFromAny(g, tensor.New(tensor.WithShape(6), tensor.WithBacking(append([]float32(nil), w...))), G.WithName("w"))
		r, err := reshape(x, tensor.Shape{6})
		require.NoError(t, err)
		p, err := G.HadamardProd(wn, r)
		require.NoError(t, err)
		loss, err := G.Sum(p)
		require.NoError(t, err)
		grads, err := G.Grad(loss, x)
		require.NoError(t, err)
		m, err := NewMachine(g)
		require.NoError(t, err)
		defer m.Close()
		for range 3 {
			require.NoError(t, m.Run())
		}
		return bits(r.Value().Data().([]float32)), bits(grads[0].Value().Data().([]float32))
	}
	wantVal, wantGrad := run(G.Reshape)
	gotVal, gotGrad := run(CopyReshape)
	assert.Equal(t, wantVal, gotVal)
	assert.Equal(t, wantGrad, gotGrad)
	g := G.NewGraph()
	x := G.NewMatrix(g, tensor.Float32, G.WithShape(2, 3), G.WithName("x"))
	for _, to := range []tensor.Shape{{5}, {}, {7, 1}} {
		_, err := CopyReshape(x, to)
		assert.Error(t, err, "%v", to)
	}
}

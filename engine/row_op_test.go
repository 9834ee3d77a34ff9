package engine

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Row gives, forward and backward, bitwise what gorgonia's slice of row k
// reshaped to (N) gives, with upstream gradients that hold −0, ±Inf and
// NaN, run after run on one machine: L = Σ w0 ⊙ row0(x) + Σ w1 ⊙ row1(x),
// and L = Σ w0 ⊙ row0(x) alone (no gradient sum to hide a −0).
func TestRowMatchesSliceAndReshape(t *testing.T) {
	const n = 7
	nan, inf, negZero := float32(math.NaN()), float32(math.Inf(1)), float32(math.Copysign(0, -1))
	xs := []float32{1, -2, 3.5, negZero, 0, 1e-40, -7, 2, 2, 3, inf, -1, 0.5, 9}
	w0 := []float32{negZero, 1, -1, 2, negZero, 3, 0.25}
	w1 := []float32{1, negZero, nan, -inf, 0, 2, negZero}
	run := func(row func(x *G.Node, k int) (*G.Node, error), ws [][]float32) (vals [][]uint32, grad []uint32) {
		g := G.NewGraph()
		x := G.NodeFromAny(g, tensor.New(tensor.WithShape(2, n), tensor.WithBacking(append([]float32(nil), xs...))), G.WithName("x"))
		var loss *G.Node
		var rows G.Nodes
		for k, w := range ws {
			r, err := row(x, k)
			require.NoError(t, err)
			rows = append(rows, r)
			wn := G.NodeFromAny(g, tensor.New(tensor.WithShape(n), tensor.WithBacking(append([]float32(nil), w...))), G.WithName("w"+string(rune('0'+k))))
			p, err := G.HadamardProd(wn, r)
			require.NoError(t, err)
			s, err := G.Sum(p)
			require.NoError(t, err)
			if loss == nil {
				loss = s
			} else if loss, err = G.Add(loss, s); err != nil {
				require.NoError(t, err)
			}
		}
		grads, err := G.Grad(loss, x)
		require.NoError(t, err)
		m, err := NewMachine(g)
		require.NoError(t, err)
		defer m.Close()
		for range 3 { // the kept buffers must come back clean
			require.NoError(t, m.Run())
		}
		for _, r := range rows {
			vals = append(vals, bits(r.Value().Data().([]float32)))
		}
		return vals, bits(grads[0].Value().Data().([]float32))
	}
	stock := func(x *G.Node, k int) (*G.Node, error) {
		r, err := G.Slice(x, G.S(k, k+1))
		if err != nil {
			return nil, err
		}
		return G.Reshape(r, tensor.Shape{x.Shape()[1]})
	}
	for _, ws := range [][][]float32{{w0, w1}, {w0}} {
		wantVals, wantGrad := run(stock, ws)
		gotVals, gotGrad := run(Row, ws)
		assert.Equal(t, wantVals, gotVals, "%d rows", len(ws))
		assert.Equal(t, wantGrad, gotGrad, "%d rows", len(ws))
	}
}

func TestRowRejectsBadInput(t *testing.T) {
	g := G.NewGraph()
	x := G.NewMatrix(g, tensor.Float32, G.WithShape(2, 3), G.WithName("x"))
	v := G.NewVector(g, tensor.Float32, G.WithShape(3), G.WithName("v"))
	for _, c := range []struct {
		x *G.Node
		k int
	}{{x, -1}, {x, 2}, {v, 0}, {nil, 0}} {
		_, err := Row(c.x, c.k)
		assert.Error(t, err)
	}
}

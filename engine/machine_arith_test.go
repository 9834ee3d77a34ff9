package engine

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// directArith writes bitwise what gorgonia's preallocated path of the same
// op writes, special values (±0, ±Inf, NaN, subnormals) included, into a
// separate output or over an input; and it declines operands it does not
// cover, leaving the output alone.
func TestDirectArithMatchesGorgonia(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	special := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.NaN()), 1e-40, -3e-39, math.MaxFloat32, 1, -1}
	data := func(n int) []float32 {
		d := make([]float32, n)
		for i := range d {
			d[i] = float32(rng.NormFloat64() * 3)
			if rng.IntN(4) == 0 {
				d[i] = special[rng.IntN(len(special))]
			}
		}
		return d
	}
	dense := func(d []float32, shape ...int) *tensor.Dense {
		return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(append([]float32(nil), d...)))
	}
	g := G.NewGraph()
	x := G.NewMatrix(g, tensor.Float32, G.WithShape(3, 5), G.WithName("x"))
	y := G.NewMatrix(g, tensor.Float32, G.WithShape(3, 5), G.WithName("y"))
	for _, c := range []struct {
		name  string
		build func(a, b *G.Node) (*G.Node, error)
		want  arith
	}{{"add", G.Add, arithAdd}, {"sub", G.Sub, arithSub}, {"mul", G.HadamardProd, arithMul}, {"div", G.HadamardDiv, arithDiv}} {
		n, err := c.build(x, y)
		require.NoError(t, err)
		op := n.Op()
		require.Equal(t, c.want, arithOf(op), c.name)
		pd := op.(G.UsePreallocDoer)
		for _, shape := range [][]int{{3, 5}, {1, 7}, {64, 33}} {
			size := shape[0] * shape[1]
			a, b := data(size), data(size)
			for _, into := range []string{"out", "a", "b"} {
				ref := []*tensor.Dense{dense(a, shape...), dense(b, shape...), dense(data(size), shape...)}
				got := []*tensor.Dense{dense(a, shape...), dense(b, shape...), ref[2].Clone().(*tensor.Dense)}
				pick := map[string]int{"out": 2, "a": 0, "b": 1}[into]
				v, err := pd.UsePreallocDo(ref[pick], ref[0], ref[1])
				require.NoError(t, err)
				require.True(t, directArith(c.want, got[pick], []G.Value{got[0], got[1]}), "%s %v into %s", c.name, shape, into)
				assert.Equal(t, bits(v.(*tensor.Dense).Float32s()), bits(got[pick].Float32s()), "%s %v into %s", c.name, shape, into)
			}
		}
		// Declined: another shape, a float64 operand, a scalar, a view, a
		// partly overlapping output.
		a, b, out := dense(data(15), 3, 5), dense(data(15), 3, 5), dense(data(15), 3, 5)
		keep := bits(out.Float32s())
		wide := tensor.New(tensor.WithShape(3, 10), tensor.WithBacking(data(30)))
		view, err := wide.Slice(nil, tensor.S(0, 5))
		require.NoError(t, err)
		backing := data(16)
		shifted := tensor.New(tensor.WithShape(3, 5), tensor.WithBacking(backing[:15]))
		overlap := tensor.New(tensor.WithShape(3, 5), tensor.WithBacking(backing[1:16]))
		for name, args := range map[string][3]G.Value{
			"shape":   {dense(data(15), 5, 3), a, b},
			"float64": {out, tensor.New(tensor.WithShape(3, 5), tensor.Of(tensor.Float64)), b},
			"scalar":  {out, G.NewF32(2), b},
			"view":    {out, view, b},
			"overlap": {overlap, shifted, b},
		} {
			assert.False(t, directArith(c.want, args[0], []G.Value{args[1], args[2]}), "%s: %s", c.name, name)
		}
		assert.Equal(t, keep, bits(out.Float32s()), "%s: a declined call writes nothing", c.name)
	}
	sq, err := G.Square(x)
	require.NoError(t, err)
	assert.Zero(t, arithOf(sq.Op()), "not elementwise arithmetic of two tensors")
}

// bits are the float32s' bit patterns, so NaNs compare.
func bits(xs []float32) []uint32 {
	out := make([]uint32, len(xs))
	for i, x := range xs {
		out[i] = math.Float32bits(x)
	}
	return out
}

package kernels

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// adamWInputs are a parameter's value, gradient and moments of length n,
// with the odd values an update meets: zero and huge gradients, zero
// second moments.
func adamWInputs(rng *rand.Rand, n int) (data, grad, m, v []float32) {
	data, grad, m, v = opsRandn(rng, n, 0, 0.1), opsRandn(rng, n, 0, 1e-2), opsRandn(rng, n, 0, 1e-3), make([]float32, n)
	for i := range v {
		v[i] = float32(rng.Float64() * 1e-4)
		switch i % 11 {
		case 3:
			grad[i] = 0
		case 5:
			v[i] = 0
		case 7:
			grad[i] = 1e30
		}
	}
	return
}

func cloneAll(xs ...[]float32) [][]float32 {
	out := make([][]float32, len(xs))
	for i, x := range xs {
		out[i] = append([]float32(nil), x...)
	}
	return out
}

// The fast update (assembly, goroutines) is bitwise the plain loop, for
// lengths around the 8-lane blocks and long enough to be split.
func TestAdamWUpdateMatchesRefBitwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	steps := []AdamWStep{
		{B1: 0.9, B2: 0.95, BC1: 0.1, BC2: 0.05, LR: 1e-3, Eps: 1e-8, Shrink: 1 - 1e-4},
		{B1: 0.8, B2: 0.999, BC1: 0.488, BC2: 0.002997001, LR: 3e-4, Eps: 1e-6, Shrink: 1},
	}
	for _, avx := range productPaths() {
		for _, procs := range []int{1, 2, 3} {
			for _, n := range []int{1, 7, 8, 9, 63, 100_003} {
				for _, s := range steps {
					data, grad, m, v := adamWInputs(rng, n)
					want := cloneAll(data, grad, m, v)
					require.NoError(t, AdamWUpdateRef(s, want[0], want[1], want[2], want[3]))
					prev := runtime.GOMAXPROCS(procs)
					withProducts(avx, func() { require.NoError(t, AdamWUpdate(s, data, grad, m, v)) })
					runtime.GOMAXPROCS(prev)
					assert.Equal(t, want[0], data, "data avx=%v procs=%d n=%d", avx, procs, n)
					assert.Equal(t, want[2], m, "m avx=%v procs=%d n=%d", avx, procs, n)
					assert.Equal(t, want[3], v, "v avx=%v procs=%d n=%d", avx, procs, n)
				}
			}
		}
	}
}

// The loop is the formula: one element by hand, in float64.
func TestAdamWUpdateRefHandComputed(t *testing.T) {
	s := AdamWStep{B1: 0.9, B2: 0.95, BC1: 1 - 0.9, BC2: 1 - 0.95, LR: 0.01, Eps: 1e-8, Shrink: 1 - 0.01*0.1}
	data, grad, m, v := []float32{0.5}, []float32{0.2}, []float32{0}, []float32{0}
	require.NoError(t, AdamWUpdateRef(s, data, grad, m, v))
	g := float64(float32(0.2))
	mi, vi := 0.1*g, 0.05*g*g
	want := float64(float32(0.5))*s.Shrink - 0.01*(mi/s.BC1)/(math.Sqrt(vi/s.BC2)+1e-8)
	assert.InDelta(t, want, float64(data[0]), 1e-7)
	assert.InEpsilon(t, mi, float64(m[0]), 1e-7) // stored in float32
	assert.InEpsilon(t, vi, float64(v[0]), 1e-7)
}

func TestAdamWUpdateRejectsMismatchedLengths(t *testing.T) {
	s := AdamWStep{B1: 0.9, B2: 0.95, BC1: 0.1, BC2: 0.05, LR: 1e-3, Eps: 1e-8, Shrink: 1}
	for _, c := range []struct{ d, g, m, v int }{{2, 1, 2, 2}, {2, 2, 3, 2}, {2, 2, 2, 0}} {
		assert.Error(t, AdamWUpdate(s, make([]float32, c.d), make([]float32, c.g), make([]float32, c.m), make([]float32, c.v)), "%+v", c)
		assert.Error(t, AdamWUpdateRef(s, make([]float32, c.d), make([]float32, c.g), make([]float32, c.m), make([]float32, c.v)), "%+v", c)
	}
}

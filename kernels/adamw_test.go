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

// adamWSets are the kernel sets this machine can run AdamWUpdate on
// ("go", "avx2", "avx512"); withAdamWSet runs f under one of them.
func adamWSets() []string {
	sets := []string{"go"}
	if hasAVX2FMA && asmBuilt {
		sets = append(sets, "avx2")
		if hasAVX512F {
			sets = append(sets, "avx512")
		}
	}
	return sets
}

func withAdamWSet(set string, f func()) {
	prev, prev512 := useAVX2, useAVX512
	defer func() { useAVX2, useAVX512 = prev, prev512 }()
	useAVX2, useAVX512 = set != "go", set == "avx512"
	f()
}

var adamWTestSteps = []AdamWStep{
	{B1: 0.9, B2: 0.95, BC1: 0.1, BC2: 0.05, LR: 1e-3, Eps: 1e-8, Shrink: 1 - 1e-4},
	{B1: 0.8, B2: 0.999, BC1: 0.488, BC2: 0.002997001, LR: 3e-4, Eps: 1e-6, Shrink: 1},
}

// The fast update (assembly, goroutines) is bitwise the plain loop under
// every kernel set, for lengths around the 4- and 8-lane blocks (the
// tails run in Go) and long enough to be split.
func TestAdamWUpdateMatchesRefBitwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	for _, set := range adamWSets() {
		for _, procs := range []int{1, 2, 3} {
			for _, n := range []int{1, 3, 4, 5, 7, 8, 9, 12, 13, 15, 63, 100_003} {
				for _, s := range adamWTestSteps {
					data, grad, m, v := adamWInputs(rng, n)
					want := cloneAll(data, grad, m, v)
					require.NoError(t, AdamWUpdateRef(s, want[0], want[1], want[2], want[3]))
					prev := runtime.GOMAXPROCS(procs)
					withAdamWSet(set, func() { require.NoError(t, AdamWUpdate(s, data, grad, m, v)) })
					runtime.GOMAXPROCS(prev)
					assert.Equal(t, want[0], data, "data %s procs=%d n=%d", set, procs, n)
					assert.Equal(t, want[1], grad, "grad %s procs=%d n=%d", set, procs, n)
					assert.Equal(t, want[2], m, "m %s procs=%d n=%d", set, procs, n)
					assert.Equal(t, want[3], v, "v %s procs=%d n=%d", set, procs, n)
				}
			}
		}
	}
}

// The same slice passed twice gives the loop's result too: each element is
// read and written in the loop's order (g, m, v read; m, v written; the
// value read and written).
func TestAdamWUpdateAliasedMatchesRefBitwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(73, 74))
	// Each case names which of three slices is data, grad, m and v.
	cases := map[string][4]int{
		"data=grad": {0, 0, 1, 2},
		"m=v":       {0, 1, 2, 2},
		"grad=m":    {0, 1, 1, 2},
		"data=m":    {0, 1, 0, 2},
		"data=v":    {0, 1, 2, 0},
	}
	update := func(f func(AdamWStep, []float32, []float32, []float32, []float32) error, xs [][]float32, c [4]int) error {
		return f(adamWTestSteps[0], xs[c[0]], xs[c[1]], xs[c[2]], xs[c[3]])
	}
	for _, set := range adamWSets() {
		for name, c := range cases {
			for _, n := range []int{5, 13, 64, 100_003} {
				x, y, z, _ := adamWInputs(rng, n)
				for i := range x {
					// x and z may be a second moment: make them valid ones
					x[i], z[i] = float32(math.Abs(float64(x[i]))), float32(math.Abs(float64(z[i])))
				}
				got, want := [][]float32{x, y, z}, cloneAll(x, y, z)
				require.NoError(t, update(AdamWUpdateRef, want, c))
				withAdamWSet(set, func() { require.NoError(t, update(AdamWUpdate, got, c)) })
				assert.Equal(t, want, got, "%s %s n=%d", set, name, n)
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

package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// forEachImpl runs f once per fast path this machine can run (the AVX2
// assembly on amd64 or the NEON assembly on arm64 where present, and always
// the pure-Go fallback), restoring the start-up choice afterwards.
func forEachImpl(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	saved, savedNEON := useAVX2, useNEON
	defer func() { useAVX2, useNEON = saved, savedNEON }()
	type impl struct{ avx2, neon bool }
	impls := []impl{{}}
	if hasAVX2FMA && asmBuilt {
		impls = append(impls, impl{avx2: true})
	}
	if neonBuilt {
		impls = append(impls, impl{neon: true})
	}
	for _, im := range impls {
		useAVX2, useNEON = im.avx2, im.neon
		t.Run(Impl(), f)
	}
}

// ulpErr is |got − want| in units of the float32 spacing at want, where want
// is e^x rounded to float32 (a normal number).
func ulpErr(got float32, want float64) float64 {
	w := float32(want)
	ulp := float64(math.Nextafter32(w, float32(math.Inf(1))) - w)
	return math.Abs(float64(got)-want) / ulp
}

// expSweep is a spread of inputs over the range of normal float32 results:
// every 1031st float32 in [−87.33, 88.37], a dense [−1, 1], and random values.
func expSweep() []float32 {
	var xs []float32
	for _, sign := range []uint32{0, 1 << 31} {
		for b := uint32(0); ; b += 1031 {
			x := math.Float32frombits(b | sign)
			if x < -87.33 || x > 88.37 {
				break
			}
			xs = append(xs, x)
		}
	}
	for i := -100000; i <= 100000; i++ {
		xs = append(xs, float32(i)/100000)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		xs = append(xs, float32(r.Float64()*175.7-87.33))
	}
	return xs
}

func TestExpAccuracy(t *testing.T) {
	xs := expSweep()
	forEachImpl(t, func(t *testing.T) {
		got := make([]float32, len(xs))
		Exp(got, xs)
		worst, worstX, sum := 0.0, float32(0), 0.0
		for i, x := range xs {
			e := ulpErr(got[i], math.Exp(float64(x)))
			sum += e
			if e > worst {
				worst, worstX = e, x
			}
		}
		t.Logf("%s: %d inputs, max %.3f ulp at x=%g, mean %.3f ulp", Impl(), len(xs), worst, worstX, sum/float64(len(xs)))
		assert.LessOrEqual(t, worst, 2.0, "max ulp error (at x=%g)", worstX)
	})
}

func TestExpEdges(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	exp := func(x float64) float64 { return math.Exp(float64(float32(x))) } // of the float32 input
	cases := []struct {
		name string
		x    float64
		want float64 // NaN means "want NaN"
		tol  float64 // absolute
	}{
		{"zero", 0, 1, 0},
		{"negative zero", math.Copysign(0, -1), 1, 0},
		{"one", 1, math.E, 3e-7},
		{"-Inf", -inf, 0, 0},
		{"very negative", -1e30, 0, 0},
		{"below clamp", -88.5, 0, 0},
		{"clamp", -88, 0, 0},
		{"denormal range", -87.5, exp(-87.5), 1.2e-38},
		{"smallest normal", -87.33, exp(-87.33), 1e-44},
		{"largest finite", 88.37, exp(88.37), 3e31},
		{"early overflow", 88.5, inf, 0},
		{"overflow", 100, inf, 0},
		{"+Inf", inf, inf, 0},
		{"NaN", nan, nan, 0},
	}
	// Lengths 1..17 put each case in every lane, in the 8-wide body and in
	// the masked tail.
	forEachImpl(t, func(t *testing.T) {
		for _, c := range cases {
			for n := 1; n <= 17; n++ {
				xs := make([]float32, n)
				for i := range xs {
					xs[i] = 0.5
				}
				xs[n-1] = float32(c.x)
				got := make([]float32, n+1)
				got[n] = 42 // Exp must not write past len(src)
				Exp(got, xs)
				g := float64(got[n-1])
				switch {
				case math.IsNaN(c.want):
					assert.True(t, math.IsNaN(g), "%s n=%d: got %g", c.name, n, g)
				case math.IsInf(c.want, 0):
					assert.Equal(t, c.want, g, "%s n=%d", c.name, n)
				default:
					assert.InDelta(t, c.want, g, c.tol, "%s n=%d", c.name, n)
					if c.want == 0 {
						assert.False(t, math.Signbit(g), "%s: want +0", c.name)
					}
				}
				if n > 1 {
					assert.InDelta(t, math.Exp(0.5), float64(got[0]), 2e-7, "%s n=%d lane 0", c.name, n)
				}
				require.Equal(t, float32(42), got[n], "wrote past the end")
			}
		}
	})
}

// TestLogAVX2 sweeps the assembly log used to finish each forward row
// (log of a row's sum, which is in [1, v]) over positive normal floats.
func TestLogAVX2(t *testing.T) {
	if !hasAVX2FMA || !asmBuilt {
		t.Skip("no AVX2 assembly on this machine")
	}
	var xs []float32
	for b := uint32(0x00800000); b < 0x7f800000; b += 997 { // every 997th positive normal
		xs = append(xs, math.Float32frombits(b))
	}
	for i := 0; i < 200000; i++ { // dense near 1, where log x is small
		xs = append(xs, 1+float32(i)*1e-6, 1-float32(i)*1e-7)
	}
	for n := 1; n <= 9; n++ { // lengths for the masked tail
		xs = append(xs, xs[:n]...)
	}
	got := make([]float32, len(xs))
	logAVX2(got, xs)
	worst, worstX := 0.0, float32(0)
	for i, x := range xs {
		want := math.Log(float64(x))
		if want == 0 {
			assert.Equal(t, float32(0), got[i], "log 1")
			continue
		}
		if e := ulpErr(got[i], want); e > worst {
			worst, worstX = e, x
		}
	}
	t.Logf("log: %d inputs, max %.3f ulp at x=%g", len(xs), worst, worstX)
	assert.LessOrEqual(t, worst, 2.0, "max ulp error (at x=%g)", worstX)
}

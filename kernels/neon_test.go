package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The NEON kernels (arm64 builds) against the portable Go paths. On arm64
// the Go compiler fuses x*y + z into one multiply-add, and the assembly
// fuses exactly the same steps, so where the NEON kernel sums in the Go
// loop's order the two agree bitwise: the Sgemm tile, axpy and Exp. The dot
// product sums in a different order and is held to SgemmRef's bound by the
// table-driven Sgemm tests (sgemmTestSets has the "neon" set). These tests
// run under qemu-aarch64 in CI (.ci/run) and skip elsewhere.

func skipWithoutNEON(t *testing.T) {
	t.Helper()
	if !neonBuilt {
		t.Skip("no NEON build here (arm64 without the noasm tag)")
	}
}

func TestSgemmNEONMatchesGoBitwise(t *testing.T) {
	skipWithoutNEON(t)
	require.NotNil(t, sgemmNEON)
	rng := rand.New(rand.NewPCG(41, 42))
	for range 30 {
		// n > 1 and m > 1 keep the product on the tiles, where both sets
		// sum in the same order; k past KC adds a second K panel (β = 1).
		tc := sgemmCase{m: 2 + rng.IntN(40), n: 2 + rng.IntN(70), k: 1 + rng.IntN(2*sgemmKC+9),
			transA: rng.IntN(2) == 1, transB: rng.IntN(2) == 1,
			alpha: float32(rng.NormFloat64()), beta: []float32{0, 1, 0.5}[rng.IntN(3)], pad: rng.IntN(4)}
		o := newSgemmOperands(rng, tc)
		want := append([]float32(nil), o.c...)
		got := append([]float32(nil), o.c...)
		w := 1 + rng.IntN(3)
		require.NoError(t, sgemmWith(sgemmGo, w, tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, o.a, o.lda, o.b, o.ldb, tc.beta, want, o.ldc))
		require.NoError(t, sgemmWith(sgemmNEON, w, tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, o.a, o.lda, o.b, o.ldb, tc.beta, got, o.ldc))
		assert.Equal(t, want, got, "%v", tc)
	}
}

func TestSaxpyNEONMatchesGoBitwise(t *testing.T) {
	skipWithoutNEON(t)
	rng := rand.New(rand.NewPCG(43, 44))
	for n := 1; n <= 70; n++ {
		x, y := opsRandn(rng, n, 0, 1), opsRandn(rng, n+3, 0, 1)
		want, got := append([]float32(nil), y...), append([]float32(nil), y...)
		alpha := float32(rng.NormFloat64())
		saxpyGo(alpha, x, want)
		sgemmNEON.axpy(alpha, x, got)
		assert.Equal(t, want, got, "n=%d", n)
	}
}

func TestSdotNEONWithinRounding(t *testing.T) {
	// The dot's order is not sdotGo's: it is held to the float32 bound
	// n·ε·Σ|x·y| against the float64 sum, at every length around its
	// blocks of 16 and 4.
	skipWithoutNEON(t)
	rng := rand.New(rand.NewPCG(45, 46))
	for n := 1; n <= 70; n++ {
		x, y := opsRandn(rng, n, 0, 1), opsRandn(rng, n+2, 0, 1)
		var ref, abs float64
		for i := range x {
			ref += float64(x[i]) * float64(y[i])
			abs += math.Abs(float64(x[i]) * float64(y[i]))
		}
		got := float64(sgemmNEON.dot(x, y))
		assert.LessOrEqual(t, math.Abs(got-ref), float64(n)*0x1p-24*abs, "n=%d", n)
	}
}

func TestExpNEONMatchesGoBitwise(t *testing.T) {
	// Every input of the accuracy sweep and the edges (±Inf, NaN, the
	// clamp, the early overflow) in every lane: the NEON lanes are
	// exp32's bits (NaN: NaN).
	skipWithoutNEON(t)
	xs := expSweep()
	for _, v := range []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), -88, -88.5, -87.5, -1e30, 88.37, 88.5, 100, 1e30} {
		for range 4 {
			xs = append(xs, float32(v))
		}
		xs = append(xs, 0.5)
	}
	xs = xs[:len(xs)&^3]
	got := make([]float32, len(xs))
	expNEON(&got[0], &xs[0], len(xs))
	bad := 0
	for i, x := range xs {
		want := exp32(x)
		same := math.Float32bits(got[i]) == math.Float32bits(want) || (want != want && got[i] != got[i])
		if !same {
			if bad++; bad <= 5 {
				t.Errorf("expNEON(%g) = %g (%#x), exp32 %g (%#x)", x, got[i], math.Float32bits(got[i]), want, math.Float32bits(want))
			}
		}
	}
	assert.Zero(t, bad, "%d of %d lanes differ", bad, len(xs))
}

// sameFloats reports the first index where a and b differ in their bits
// (any NaN matching any NaN), or −1.
func sameFloats(a, b []float32) int {
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) && !(a[i] != a[i] && b[i] != b[i]) {
			return i
		}
	}
	return -1
}

func TestGELUNEONMatchesGoBitwise(t *testing.T) {
	// Forward and backward with useNEON on and off, at lengths around the
	// 4-lane blocks (the tail is Go's) and on inputs that cover the curve,
	// the saturated tails (σ(1−σ) = 0), ±Inf, NaN, ±0 and subnormals.
	skipWithoutNEON(t)
	defer func(old bool) { useNEON = old }(useNEON)
	rng := rand.New(rand.NewPCG(47, 48))
	special := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
		1e-40, -1e-40, 9, -9, 12, -12, 30, -30, 1e10, -1e10, math.MaxFloat32, -math.MaxFloat32}
	for _, n := range []int{1, 3, 4, 5, 7, 8, 13, 16, 31, 64, 257, 1000} {
		x, dy := opsRandn(rng, n, 0, 3), opsRandn(rng, n, 0, 1)
		for i := range x {
			if rng.IntN(4) == 0 {
				x[i] = special[rng.IntN(len(special))]
			}
		}
		var ys, dxs [2][]float32
		for k, on := range []bool{false, true} {
			useNEON = on
			ys[k], dxs[k] = make([]float32, n), make([]float32, n)
			require.NoError(t, GELUForward(x, ys[k]))
			require.NoError(t, GELUBackward(x, dy, dxs[k]))
		}
		if i := sameFloats(ys[0], ys[1]); i >= 0 {
			t.Errorf("n=%d: forward at x=%g: go %g, neon %g", n, x[i], ys[0][i], ys[1][i])
		}
		if i := sameFloats(dxs[0], dxs[1]); i >= 0 {
			t.Errorf("n=%d: backward at x=%g: go %g, neon %g", n, x[i], dxs[0][i], dxs[1][i])
		}
	}
}

// ulpsApart is how many float32 values lie between a and b (same sign
// assumed; 0 when equal).
func ulpsApart(a, b float32) int64 {
	d := int64(math.Float32bits(a)) - int64(math.Float32bits(b))
	if d < 0 {
		d = -d
	}
	return d
}

func TestSoftmaxRowNEONMatchesGo(t *testing.T) {
	// The scratch (scaled, shifted, exponentiated) is bitwise the Go
	// loop's; p within 1 ulp (Σ is added in another order, so 1/Σ may
	// round to the neighbouring float32). Lengths around the 4-lane
	// blocks; rows with −Inf (masked keys), a NaN, all −Inf, and p = x.
	skipWithoutNEON(t)
	defer func(old bool) { useNEON = old }(useNEON)
	rng := rand.New(rand.NewPCG(49, 50))
	for n := 1; n <= 70; n++ {
		for kind := range 4 {
			x := opsRandn(rng, n, 0, 20)
			switch kind {
			case 1:
				x[rng.IntN(n)] = float32(math.Inf(-1))
			case 2:
				x[rng.IntN(n)] = float32(math.NaN())
			case 3:
				for i := range x {
					x[i] = float32(math.Inf(-1))
				}
			}
			var xs, ps [2][]float32
			for k, on := range []bool{false, true} {
				useNEON = on
				xs[k] = append([]float32(nil), x...)
				ps[k] = make([]float32, n+4)
				for i := n; i < n+4; i++ {
					ps[k][i] = 7 // nothing past n is written
				}
				softmaxRow(xs[k], 0.25, ps[k])
			}
			if i := sameFloats(xs[0], xs[1]); i >= 0 {
				t.Errorf("n=%d kind=%d: scratch[%d] go %g, neon %g", n, kind, i, xs[0][i], xs[1][i])
			}
			for i := range ps[0] {
				g, v := ps[0][i], ps[1][i]
				if (g != g) != (v != v) || (g == g && ulpsApart(g, v) > 1) {
					t.Errorf("n=%d kind=%d: p[%d] go %g, neon %g", n, kind, i, g, v)
					break
				}
			}
			useNEON = true
			inPlace := append([]float32(nil), x...)
			softmaxRow(inPlace, 0.25, inPlace) // p may be x
			assert.Equal(t, -1, sameFloats(ps[1][:n], inPlace), "n=%d kind=%d in place", n, kind)
		}
	}
}

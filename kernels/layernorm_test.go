package kernels

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// opsRandn returns n values offset + scale·N(0,1) from rng.
func opsRandn(rng *rand.Rand, n int, offset, scale float64) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(offset + scale*rng.NormFloat64())
	}
	return out
}

// assertClose32 checks |got − want| ≤ abs + rel·|want| elementwise, with NaN
// only where want is NaN.
func assertClose32(t *testing.T, want, got []float32, abs, rel float64, what string) {
	t.Helper()
	require.Equal(t, len(want), len(got), what)
	worst, at := 0.0, -1
	for i := range want {
		w, g := float64(want[i]), float64(got[i])
		if math.IsNaN(w) || math.IsNaN(g) {
			if !(math.IsNaN(w) && math.IsNaN(g)) {
				t.Fatalf("%s[%d]: want %v, got %v", what, i, w, g)
			}
			continue
		}
		if w == g { // also equal infinities
			continue
		}
		if e := math.Abs(w-g) / (abs + rel*math.Abs(w)); e > worst {
			worst, at = e, i
		}
	}
	if worst > 1 {
		t.Fatalf("%s[%d]: want %v, got %v (%.3g× the tolerance)", what, at, want[at], got[at], worst)
	}
}

type lnOut struct {
	y, dx, dgamma, dbeta []float32
	mean, rstd           []float64
}

// runLayerNorm runs forward and backward with the reference or fast kernels.
func runLayerNorm(t *testing.T, fast bool, x []float32, n, c int, gamma, beta, dy []float32) lnOut {
	t.Helper()
	o := lnOut{y: make([]float32, n*c), mean: make([]float64, n), rstd: make([]float64, n),
		dx: make([]float32, n*c), dgamma: make([]float32, c), dbeta: make([]float32, c)}
	fwd, bwd := LayerNormForwardRef, LayerNormBackwardRef
	if fast {
		fwd, bwd = LayerNormForward, LayerNormBackward
	}
	require.NoError(t, fwd(x, n, c, gamma, beta, 1e-5, o.y, o.mean, o.rstd))
	require.NoError(t, bwd(x, n, c, gamma, o.mean, o.rstd, dy, o.dx, o.dgamma, o.dbeta))
	return o
}

func TestLayerNormHandComputed(t *testing.T) {
	// x = [1 2 3 4]: mean 2.5, biased var (2.25+0.25+0.25+2.25)/4 = 1.25.
	x := []float32{1, 2, 3, 4}
	gamma := []float32{1, 2, 1, 1}
	beta := []float32{0, 0, 0.5, 0}
	y := make([]float32, 4)
	mean, rstd := make([]float64, 1), make([]float64, 1)
	require.NoError(t, LayerNormForwardRef(x, 1, 4, gamma, beta, 1e-5, y, mean, rstd))
	r := 1 / math.Sqrt(1.25+1e-5)
	assert.InDelta(t, 2.5, mean[0], 1e-12)
	assert.InDelta(t, r, rstd[0], 1e-12)
	want := []float32{float32(-1.5 * r), float32(2 * -0.5 * r), float32(0.5*r + 0.5), float32(1.5 * r)}
	assertClose32(t, want, y, 1e-7, 1e-6, "y")

	// dy = e_0: dβ = dy, dγ = dy·x̂, dx = rstd·(g − mean g − x̂·mean(g·x̂)), g = dy·γ.
	dy := []float32{1, 0, 0, 0}
	dx, dg, db := make([]float32, 4), make([]float32, 4), make([]float32, 4)
	require.NoError(t, LayerNormBackwardRef(x, 1, 4, gamma, mean, rstd, dy, dx, dg, db))
	xh := []float64{-1.5 * r, -0.5 * r, 0.5 * r, 1.5 * r}
	for j := range 4 {
		g := 0.0
		if j == 0 {
			g = 1
		}
		want := r * (g - 0.25 - xh[j]*xh[0]/4)
		assert.InDelta(t, want, float64(dx[j]), 1e-6, "dx[%d]", j)
	}
	assertClose32(t, []float32{float32(xh[0]), 0, 0, 0}, dg, 1e-7, 1e-6, "dgamma")
	assert.Equal(t, dy, db)
}

func TestLayerNormFastMatchesRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := []struct {
		name           string
		n, c           int
		offset, scale  float64
		absTol, relTol float64
	}{
		{"empty", 0, 5, 0, 1, 0, 0},
		{"c=1", 3, 1, 0, 1, 1e-6, 1e-6},
		{"odd", 5, 7, 0, 1, 1e-6, 1e-5},
		{"not multiple of 4", 17, 33, 0.5, 2, 1e-6, 1e-5},
		{"model size", 96, 64, 0, 1, 1e-6, 1e-5},
		{"wide, parallel", 257, 256, 0, 3, 1e-6, 1e-5},
		{"huge values", 9, 40, 0, 1e4, 1e-6, 1e-5},
		{"large offset", 9, 40, 1e4, 1, 1e-6, 1e-5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x := opsRandn(rng, tc.n*tc.c, tc.offset, tc.scale)
			gamma := opsRandn(rng, tc.c, 1, 0.3)
			beta := opsRandn(rng, tc.c, 0, 0.3)
			dy := opsRandn(rng, tc.n*tc.c, 0, 1)
			ref := runLayerNorm(t, false, x, tc.n, tc.c, gamma, beta, dy)
			fast := runLayerNorm(t, true, x, tc.n, tc.c, gamma, beta, dy)
			assertClose32(t, ref.y, fast.y, tc.absTol, tc.relTol, "y")
			assert.InDeltaSlice(t, ref.mean, fast.mean, 1e-9*(1+math.Abs(tc.offset)))
			for i := range ref.rstd {
				assert.InEpsilon(t, ref.rstd[i], fast.rstd[i], 1e-9)
			}
			assertClose32(t, ref.dx, fast.dx, tc.absTol, tc.relTol, "dx")
			assertClose32(t, ref.dgamma, fast.dgamma, 1e-6, 1e-6, "dgamma")
			assertClose32(t, ref.dbeta, fast.dbeta, 1e-6, 1e-6, "dbeta")
		})
	}
}

// LayerNorm is invariant to a common shift of a row, and x − 1e4 is exact in
// float32 for x near 1e4: so LN(1e4 + u) must equal LN(u) up to the float32
// rounding of x itself. A one-pass float32 E[x²] − E[x]² fails this
// completely (the variance of 1e4 ± 1 drowns in 1e8's rounding).
func TestLayerNormLargeOffsetIsStable(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n, c := 6, 48
	shifted := make([]float32, n*c)
	u := make([]float32, n*c)
	for i := range shifted {
		shifted[i] = float32(1e4 + (2*rng.Float64() - 1))
		u[i] = shifted[i] - 1e4 // exact
	}
	gamma := opsRandn(rng, c, 1, 0.3)
	beta := opsRandn(rng, c, 0, 0.3)
	dy := opsRandn(rng, n*c, 0, 1)
	for _, fast := range []bool{false, true} {
		a := runLayerNorm(t, fast, shifted, n, c, gamma, beta, dy)
		b := runLayerNorm(t, fast, u, n, c, gamma, beta, dy)
		assertClose32(t, b.y, a.y, 1e-5, 1e-5, "y")
		assertClose32(t, b.dx, a.dx, 1e-5, 1e-5, "dx")
		assertClose32(t, b.dgamma, a.dgamma, 1e-5, 1e-5, "dgamma")
		for i := range a.rstd {
			assert.InEpsilon(t, b.rstd[i], a.rstd[i], 1e-9)
			assert.InDelta(t, b.mean[i]+1e4, a.mean[i], 1e-9)
		}
	}
}

func TestLayerNormNaNStaysInItsRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n, c := 4, 9
	x := opsRandn(rng, n*c, 0, 1)
	gamma, beta, dy := opsRandn(rng, c, 1, 0.2), opsRandn(rng, c, 0, 0.2), opsRandn(rng, n*c, 0, 1)
	for _, fast := range []bool{false, true} {
		clean := runLayerNorm(t, fast, x, n, c, gamma, beta, dy)
		bad := append([]float32(nil), x...)
		bad[2*c+3] = float32(math.NaN())
		got := runLayerNorm(t, fast, bad, n, c, gamma, beta, dy)
		for i := range n {
			for j := range c {
				if i == 2 {
					assert.True(t, math.IsNaN(float64(got.y[i*c+j])), "y[%d,%d]", i, j)
					assert.True(t, math.IsNaN(float64(got.dx[i*c+j])), "dx[%d,%d]", i, j)
				} else {
					assert.Equal(t, clean.y[i*c+j], got.y[i*c+j])
					assert.Equal(t, clean.dx[i*c+j], got.dx[i*c+j])
				}
			}
		}
	}
}

// The fast kernels give bitwise the same results on one goroutine as on
// several (each row, and each column sum, has a fixed order).
func TestLayerNormDeterministicAcrossGoroutines(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	n, c := 300, 200 // above the parallel threshold
	x, dy := opsRandn(rng, n*c, 0, 1), opsRandn(rng, n*c, 0, 1)
	gamma, beta := opsRandn(rng, c, 1, 0.2), opsRandn(rng, c, 0, 0.2)
	prev := runtime.GOMAXPROCS(4)
	many := runLayerNorm(t, true, x, n, c, gamma, beta, dy)
	runtime.GOMAXPROCS(1)
	one := runLayerNorm(t, true, x, n, c, gamma, beta, dy)
	runtime.GOMAXPROCS(prev)
	assert.Equal(t, one, many)
}

func TestLayerNormRejectsBadInput(t *testing.T) {
	x := make([]float32, 6)
	g, b := make([]float32, 3), make([]float32, 3)
	m, r := make([]float64, 2), make([]float64, 2)
	for _, fwd := range []func([]float32, int, int, []float32, []float32, float64, []float32, []float64, []float64) error{LayerNormForwardRef, LayerNormForward} {
		assert.ErrorContains(t, fwd(x, 2, 0, g, b, 1e-5, x, m, r), "bad shape")
		assert.ErrorContains(t, fwd(x, 3, 3, g, b, 1e-5, x, m, r), "too short")
		assert.ErrorContains(t, fwd(x, 2, 3, g, b, -1, x, m, r), "eps")
		assert.ErrorContains(t, fwd(x, 2, 3, g, b, 1e-5, x, m, nil), "both")
		assert.NoError(t, fwd(x, 2, 3, g, b, 1e-5, make([]float32, 6), nil, nil))
	}
	for _, bwd := range []func([]float32, int, int, []float32, []float64, []float64, []float32, []float32, []float32, []float32) error{LayerNormBackwardRef, LayerNormBackward} {
		assert.ErrorContains(t, bwd(x, 2, 3, g, m[:1], r, x, nil, nil, nil), "too short")
		assert.ErrorContains(t, bwd(x, 2, 3, nil, m, r, x, make([]float32, 6), nil, nil), "gamma")
		assert.ErrorContains(t, bwd(x, 2, 3, g, m, r, x, nil, make([]float32, 2), nil), "dgamma")
		assert.NoError(t, bwd(x, 2, 3, nil, m, r, x, nil, make([]float32, 3), nil))
	}
}

// The AVX2 row loops do the Go loops' float64 steps in the same order, so
// the forward's outputs and statistics agree bitwise between the paths.
func TestLayerNormForwardPathsAgreeBitwise(t *testing.T) {
	if !hasAVX2FMA || !asmBuilt {
		t.Skip("no AVX2 here")
	}
	defer func(old bool) { useAVX2 = old }(useAVX2)
	rng := rand.New(rand.NewPCG(23, 24))
	for _, c := range []int{8, 64, 192, 20} {
		for _, n := range []int{1, 3, 4, 37, 600} { // whole blocks of four rows and the rest
			x, g, b := opsRandn(rng, n*c, 3, 2), opsRandn(rng, c, 1, 0.1), opsRandn(rng, c, 0, 0.1)
			run := func(avx bool) ([]float32, []float64, []float64) {
				useAVX2 = avx
				y, m, r := make([]float32, n*c), make([]float64, n), make([]float64, n)
				require.NoError(t, LayerNormForward(x, n, c, g, b, 1e-5, y, m, r))
				return y, m, r
			}
			y1, m1, r1 := run(true)
			y0, m0, r0 := run(false)
			assert.Equal(t, y0, y1, "c=%d n=%d", c, n)
			assert.Equal(t, m0, m1, "c=%d n=%d", c, n)
			assert.Equal(t, r0, r1, "c=%d n=%d", c, n)
		}
	}
}

// Likewise for the backward: dx, dgamma and dbeta bitwise between paths.
func TestLayerNormBackwardPathsAgreeBitwise(t *testing.T) {
	if !hasAVX2FMA || !asmBuilt {
		t.Skip("no AVX2 here")
	}
	defer func(old bool) { useAVX2 = old }(useAVX2)
	rng := rand.New(rand.NewPCG(25, 26))
	for _, c := range []int{8, 64, 256, 20} {
		for _, n := range []int{1, 37, 300} { // pairs of rows and a last one; 300: more than two row chunks
			x, g, dy := opsRandn(rng, n*c, 3, 2), opsRandn(rng, c, 1, 0.1), opsRandn(rng, n*c, 0, 1)
			m, r := make([]float64, n), make([]float64, n)
			require.NoError(t, LayerNormForward(x, n, c, g, make([]float32, c), 1e-5, make([]float32, n*c), m, r))
			run := func(avx bool) ([]float32, []float32, []float32) {
				useAVX2 = avx
				dx, dg, db := make([]float32, n*c), make([]float32, c), make([]float32, c)
				require.NoError(t, LayerNormBackward(x, n, c, g, m, r, dy, dx, dg, db))
				return dx, dg, db
			}
			dx1, dg1, db1 := run(true)
			dx0, dg0, db0 := run(false)
			assert.Equal(t, dx0, dx1, "c=%d n=%d dx", c, n)
			assert.Equal(t, dg0, dg1, "c=%d n=%d dgamma", c, n)
			assert.Equal(t, db0, db1, "c=%d n=%d dbeta", c, n)
		}
	}
}

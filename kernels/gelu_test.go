package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Values from PyTorch 1.13 (float64): torch.nn.functional.gelu(x,
// approximate="tanh") and its autograd derivative, an outside oracle.
var geluTorch = []struct{ x, y, dydx float64 }{
	{-1e4, 0, 0},
	{-30, 0, 0},
	{-3, -0.0036373920817729943, -0.011584166630969648},
	{-1, -0.1588080093917233, -0.08296408384578258},
	{-0.5, -0.15428599017485606, 0.13263009646535764},
	{0, 0, 0.5},
	{1e-3, 0.000500398942213582, 0.500797884293525},
	{0.5, 0.34571400982514394, 0.8673699035346424},
	{1, 0.8411919906082768, 1.0829640838457826},
	{3, 2.996362607918227, 1.0115841666309695},
	{30, 30, 1},
	{1e4, 1e4, 1},
}

func TestGELUMatchesPyTorch(t *testing.T) {
	for _, fast := range []bool{false, true} {
		fwd, bwd := GELUForwardRef, GELUBackwardRef
		if fast {
			fwd, bwd = GELUForward, GELUBackward
		}
		x := make([]float32, len(geluTorch))
		ones := make([]float32, len(geluTorch))
		for i, c := range geluTorch {
			x[i], ones[i] = float32(c.x), 1
		}
		y, dx := make([]float32, len(x)), make([]float32, len(x))
		require.NoError(t, fwd(x, y))
		require.NoError(t, bwd(x, ones, dx))
		for i, c := range geluTorch {
			// x itself is rounded to float32 (1e-3 is not exact): allow for it.
			assert.InDelta(t, c.y, float64(y[i]), 1e-7+2e-6*math.Abs(c.y), "fast=%v gelu(%g)", fast, c.x)
			assert.InDelta(t, c.dydx, float64(dx[i]), 1e-7+2e-6*math.Abs(c.dydx), "fast=%v gelu'(%g)", fast, c.x)
		}
	}
}

// The analytic derivative matches a central difference of the float64
// formula at points spread over the curved part of GELU.
func TestGELUDerivativeMatchesFiniteDifference(t *testing.T) {
	for x := -6.0; x <= 6; x += 0.37 {
		const h = 1e-5
		num := (geluRef(x+h) - geluRef(x-h)) / (2 * h)
		assert.InDelta(t, num, geluGradRef(x), 1e-8, "x=%g", x)
	}
}

func TestGELULimitsAndNaN(t *testing.T) {
	inf := float32(math.Inf(1))
	x := []float32{inf, -inf, float32(math.NaN()), 1e38, -1e38, math.MaxFloat32, -math.MaxFloat32}
	wantY := []float64{math.Inf(1), 0, math.NaN(), 1e38, 0, math.MaxFloat32, 0}
	wantD := []float64{1, 0, math.NaN(), 1, 0, 1, 0}
	// Three copies: 21 values, so the 8-lane assembly sees every case and
	// the Go tail too.
	for range 2 {
		x, wantY, wantD = append(x, x[:7]...), append(wantY, wantY[:7]...), append(wantD, wantD[:7]...)
	}
	ones := make([]float32, len(x))
	for i := range ones {
		ones[i] = 1
	}
	for _, fast := range []bool{false, true} {
		fwd, bwd := GELUForwardRef, GELUBackwardRef
		if fast {
			fwd, bwd = GELUForward, GELUBackward
		}
		y, dx := make([]float32, len(x)), make([]float32, len(x))
		require.NoError(t, fwd(x, y))
		require.NoError(t, bwd(x, ones, dx))
		for i := range x {
			if math.IsNaN(wantY[i]) {
				assert.True(t, math.IsNaN(float64(y[i])), "fast=%v gelu(%g)", fast, x[i])
				assert.True(t, math.IsNaN(float64(dx[i])), "fast=%v gelu'(%g)", fast, x[i])
				continue
			}
			if math.IsInf(wantY[i], 0) || wantY[i] == 0 {
				assert.Equal(t, wantY[i], float64(y[i]), "fast=%v gelu(%g)", fast, x[i])
			} else {
				assert.InEpsilon(t, wantY[i], float64(y[i]), 1e-6, "fast=%v gelu(%g)", fast, x[i])
			}
			assert.Equal(t, wantD[i], float64(dx[i]), "fast=%v gelu'(%g)", fast, x[i])
		}
	}
}

func TestGELUFastMatchesRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, tc := range []struct {
		name  string
		n     int
		scale float64
		abs   float64
	}{
		{"empty", 0, 1, 0}, {"one", 1, 1, 1e-12}, {"odd", 37, 2, 1e-12}, {"parallel", 70001, 3, 1e-12},
		{"huge", 513, 1e4, 1e-12}, {"tiny", 100, 1e-20, 1e-30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, dy := opsRandn(rng, tc.n, 0, tc.scale), opsRandn(rng, tc.n, 0, 1)
			yr, yf := make([]float32, tc.n), make([]float32, tc.n)
			dr, df := make([]float32, tc.n), make([]float32, tc.n)
			require.NoError(t, GELUForwardRef(x, yr))
			require.NoError(t, GELUForward(x, yf))
			require.NoError(t, GELUBackwardRef(x, dy, dr))
			require.NoError(t, GELUBackward(x, dy, df))
			// The reference's ½x(1 + tanh u) cancels for u ≪ 0, where gelu is
			// below 1e-12 (the fast σ form is the more accurate there); the
			// fast path's float32 exp costs up to 2e-6 relative, and in gelu'
			// near its zero at x ≈ −0.75, where its two terms (±0.2) cancel,
			// about 1e-8·|dy| absolute.
			for _, avx2 := range productPaths() {
				withProducts(avx2, func() {
					require.NoError(t, GELUForward(x, yf))
					require.NoError(t, GELUBackward(x, dy, df))
				})
				assertClose32(t, yr, yf, tc.abs, 2e-6, fmt.Sprintf("avx2=%v y", avx2))
				assertClose32(t, dr, df, max(tc.abs, 1e-7), 2e-6, fmt.Sprintf("avx2=%v dx", avx2))
			}
		})
	}
}

func TestGELUDeterministicAcrossGoroutines(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	x, dy := opsRandn(rng, 50000, 0, 2), opsRandn(rng, 50000, 0, 1)
	run := func(procs int) ([]float32, []float32) {
		prev := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(prev)
		y, dx := make([]float32, len(x)), make([]float32, len(x))
		require.NoError(t, GELUForward(x, y))
		require.NoError(t, GELUBackward(x, dy, dx))
		return y, dx
	}
	y1, d1 := run(1)
	y4, d4 := run(4)
	assert.Equal(t, y1, y4)
	assert.Equal(t, d1, d4)
}

func TestGELURejectsLengthMismatch(t *testing.T) {
	a, b := make([]float32, 3), make([]float32, 4)
	assert.Error(t, GELUForwardRef(a, b))
	assert.Error(t, GELUForward(a, b))
	assert.Error(t, GELUBackwardRef(a, a, b))
	assert.Error(t, GELUBackward(a, b, a))
}

func TestExpShiftAccuracy(t *testing.T) {
	for _, avx2 := range productPaths() {
		var xs []float32
		for x := -86.8; x < 88; x += 0.0137 { // results in the normal float32 range
			xs = append(xs, float32(x))
		}
		xs = xs[:len(xs)&^7]
		got := append([]float32(nil), xs...)
		withProducts(avx2, func() { expShift(got, 0.5) })
		worst := 0.0
		for i, x := range xs {
			want := math.Exp(float64(x - 0.5)) // the shift is applied in float32
			worst = math.Max(worst, math.Abs(float64(got[i])/want-1))
		}
		assert.Less(t, worst, 3e-7, "avx2=%v", avx2)

		nan := float32(math.NaN())
		edge := []float32{-1e4, float32(math.Inf(-1)), nan, 0, -90, 1, -87, 2}
		withProducts(avx2, func() { expShift(edge, 1) })
		assert.Equal(t, []float32{0, 0}, edge[:2], "avx2=%v", avx2)
		assert.True(t, math.IsNaN(float64(edge[2])), "avx2=%v", avx2)
		assert.InEpsilon(t, math.Exp(-1), float64(edge[3]), 3e-7, "avx2=%v", avx2)
		assert.Equal(t, float32(0), edge[4], "avx2=%v", avx2)
		assert.Equal(t, float32(1), edge[5], "avx2=%v", avx2)
	}
}

// The assembly and the Go tail do the same operations in the same
// precisions: every value gets the same bits from either path, so the
// result never depends on where a chunk boundary falls.
func TestGELUPathsAgreeBitwise(t *testing.T) {
	if !(hasAVX2FMA && asmBuilt) && !neonBuilt {
		t.Skip("no AVX2 or NEON here")
	}
	rng := rand.New(rand.NewPCG(21, 22))
	x, dy := opsRandn(rng, 4099, 0, 3), opsRandn(rng, 4099, 0, 1)
	ya, yg := make([]float32, len(x)), make([]float32, len(x))
	da, dg := make([]float32, len(x)), make([]float32, len(x))
	require.NoError(t, GELUForward(x, ya))
	require.NoError(t, GELUBackward(x, dy, da))
	for i := range x { // one value at a time: always the Go tail
		require.NoError(t, GELUForward(x[i:i+1], yg[i:i+1]))
		require.NoError(t, GELUBackward(x[i:i+1], dy[i:i+1], dg[i:i+1]))
	}
	assert.Equal(t, ya, yg)
	assert.Equal(t, da, dg)
}

// The AVX-512 loops are the AVX2 ones with wider float64 stages: bitwise
// equal, limits and NaN included.
func TestGELUAVX512MatchesAVX2Bitwise(t *testing.T) {
	if !hasAVX2FMA || !hasAVX512F || !asmBuilt {
		t.Skip("no AVX-512 here")
	}
	rng := rand.New(rand.NewPCG(27, 28))
	x, dy := opsRandn(rng, 4096, 0, 4), opsRandn(rng, 4096, 0, 1)
	inf := float32(math.Inf(1))
	copy(x, []float32{inf, -inf, float32(math.NaN()), 1e38, -1e38, math.MaxFloat32, -math.MaxFloat32, 0, -0.75, 20, -20})
	y2, y5 := make([]float32, len(x)), make([]float32, len(x))
	d2, d5 := make([]float32, len(x)), make([]float32, len(x))
	for _, n := range []int{8, 16, 24, len(x) - 8, len(x)} { // the 16-lane loop and its 8-lane tail
		y2, y5, d2, d5 := y2[:n], y5[:n], d2[:n], d5[:n]
		geluFwdAVX2(&x[0], &y2[0], n)
		geluFwdAVX512(&x[0], &y5[0], n)
		geluBwdAVX2(&x[0], &dy[0], &d2[0], n)
		geluBwdAVX512(&x[0], &dy[0], &d5[0], n)
		assert.Equal(t, fmt.Sprint(y2), fmt.Sprint(y5), "n=%d", n) // NaN ≠ NaN: compare the text
		assert.Equal(t, fmt.Sprint(d2), fmt.Sprint(d5), "n=%d", n)
	}
}

package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sgemmCase is one product: shapes, transposes, scalars, and extra stride.
type sgemmCase struct {
	m, n, k        int
	transA, transB bool
	alpha, beta    float32
	pad            int // added to each row stride, so rows do not touch
}

func (tc sgemmCase) String() string {
	return fmt.Sprintf("m%d_n%d_k%d_tA%v_tB%v_a%g_b%g_pad%d", tc.m, tc.n, tc.k, tc.transA, tc.transB, tc.alpha, tc.beta, tc.pad)
}

// sgemmOperands are random A, B, C laid out for tc. The gaps between rows
// (stride padding) hold a sentinel the product must never change.
type sgemmOperands struct {
	a, b, c       []float32
	lda, ldb, ldc int
}

const sgemmSentinel = float32(-12345.5)

func newSgemmOperands(rng *rand.Rand, tc sgemmCase) sgemmOperands {
	aRows, aCols := tc.m, tc.k
	if tc.transA {
		aRows, aCols = tc.k, tc.m
	}
	bRows, bCols := tc.k, tc.n
	if tc.transB {
		bRows, bCols = tc.n, tc.k
	}
	var o sgemmOperands
	o.a, o.lda = randMatrix(rng, aRows, aCols, tc.pad)
	o.b, o.ldb = randMatrix(rng, bRows, bCols, tc.pad)
	o.c, o.ldc = randMatrix(rng, tc.m, tc.n, tc.pad)
	if tc.beta == 0 {
		// β = 0 must ignore C: old NaNs must not reach the result.
		for i := 0; i < tc.m; i++ {
			for j := 0; j < tc.n; j++ {
				o.c[i*o.ldc+j] = float32(math.NaN())
			}
		}
	}
	return o
}

// randMatrix is (rows,cols) of uniform values in [-1,1) with stride
// cols+pad (at least 1); the padding holds sgemmSentinel.
func randMatrix(rng *rand.Rand, rows, cols, pad int) ([]float32, int) {
	ld := max(1, cols+pad)
	x := make([]float32, rows*ld)
	for i := range x {
		if i%ld < cols {
			x[i] = float32(2*rng.Float64() - 1)
		} else {
			x[i] = sgemmSentinel
		}
	}
	return x, ld
}

// absCopy is |x| elementwise.
func absCopy(x []float32) []float32 {
	y := make([]float32, len(x))
	for i, v := range x {
		y[i] = float32(math.Abs(float64(v)))
	}
	return y
}

// sgemmBound is the per-element error allowed a float32 product against the
// float64 reference: (k+2)·2ε·(|α|·Σ|a||b| + |β||c|), ε = 2⁻²⁴, i.e. the
// classic k·ε bound for a length-k sum with a factor 2 of slack, plus the
// rounding of the α and β terms.
func sgemmBound(t *testing.T, tc sgemmCase, o sgemmOperands) []float32 {
	t.Helper()
	bound := absCopy(o.c)
	if tc.beta == 0 {
		clear(bound)
	}
	absAlpha, absBeta := float32(math.Abs(float64(tc.alpha))), float32(math.Abs(float64(tc.beta)))
	require.NoError(t, SgemmRef(tc.transA, tc.transB, tc.m, tc.n, tc.k, absAlpha, absCopy(o.a), o.lda,
		absCopy(o.b), o.ldb, absBeta, bound, o.ldc))
	scale := float32(tc.k+2) * 2 * 0x1p-24
	for i := range bound {
		bound[i] = bound[i]*scale + 1e-30
	}
	return bound
}

// checkSgemmAgainstRef runs sgemmWith(kern, workers) and SgemmRef on the same
// operands and compares every element of C, including the stride padding.
func checkSgemmAgainstRef(t *testing.T, rng *rand.Rand, tc sgemmCase, kern *sgemmKernelSet, workers int) {
	t.Helper()
	o := newSgemmOperands(rng, tc)
	bound := sgemmBound(t, tc, o)
	want := append([]float32(nil), o.c...)
	require.NoError(t, SgemmRef(tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, o.a, o.lda, o.b, o.ldb, tc.beta, want, o.ldc))
	got := append([]float32(nil), o.c...)
	require.NoError(t, sgemmWith(kern, workers, tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, o.a, o.lda, o.b, o.ldb, tc.beta, got, o.ldc))
	bad := 0
	for i := range got {
		if i%o.ldc >= tc.n {
			if got[i] != sgemmSentinel {
				t.Errorf("%v: padding C[%d] changed to %g", tc, i, got[i])
				return
			}
			continue
		}
		if !(math.Abs(float64(got[i]-want[i])) <= float64(bound[i])) { // also catches NaN
			if bad++; bad <= 3 {
				t.Errorf("%v: C[%d,%d] = %g, ref %g, |diff| %g > bound %g", tc, i/o.ldc, i%o.ldc, got[i], want[i], math.Abs(float64(got[i]-want[i])), bound[i])
			}
		}
	}
	assert.Zero(t, bad, "%v: %d elements out of bound", tc, bad)
}

// sgemmTestSets are the kernel sets this machine can run: the portable
// one always, the AVX2 and AVX-512 ones where the CPU and build have them,
// the NEON one in an arm64 build.
func sgemmTestSets() map[string]*sgemmKernelSet {
	sets := map[string]*sgemmKernelSet{"go": sgemmGo}
	if neonBuilt && sgemmNEON != nil {
		sets["neon"] = sgemmNEON
	}
	if hasAVX2FMA && sgemmAVX2 != nil {
		sets["avx2"] = sgemmAVX2
		if hasAVX512F && sgemmAVX512 != nil {
			sets["avx512"] = sgemmAVX512
		}
	}
	return sets
}

func TestSgemmAVX512MatchesAVX2Bitwise(t *testing.T) {
	// The 6×32 kernel does each element's sum exactly as the 6×16 one (same
	// order, same fused steps, same α/β store), so the two sets agree to the
	// bit on every shape, transpose and scalar pair.
	if !hasAVX2FMA || !hasAVX512F || sgemmAVX512 == nil {
		t.Skip("no AVX-512 here")
	}
	rng := rand.New(rand.NewPCG(13, 14))
	for range 40 {
		tc := sgemmCase{m: 1 + rng.IntN(200), n: 1 + rng.IntN(300), k: 1 + rng.IntN(600),
			transA: rng.IntN(2) == 1, transB: rng.IntN(2) == 1,
			alpha: float32(rng.NormFloat64()), beta: []float32{0, 1, 0.5}[rng.IntN(3)], pad: rng.IntN(5)}
		o := newSgemmOperands(rng, tc)
		want := append([]float32(nil), o.c...)
		got := append([]float32(nil), o.c...)
		w := 1 + rng.IntN(3)
		require.NoError(t, sgemmWith(sgemmAVX2, w, tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, o.a, o.lda, o.b, o.ldb, tc.beta, want, o.ldc))
		require.NoError(t, sgemmWith(sgemmAVX512, w, tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, o.a, o.lda, o.b, o.ldb, tc.beta, got, o.ldc))
		assert.Equal(t, want, got, "%v", tc)
	}
}

func TestSgemmEdgeShapesMatchRef(t *testing.T) {
	// Sizes around the tile (6×16), the unroll (4), and 1.
	sizes := []int{1, 2, 5, 6, 7, 15, 16, 17, 33}
	for name, kern := range sgemmTestSets() {
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			for _, m := range sizes {
				for _, n := range sizes {
					for _, k := range []int{1, 3, 4, 9} {
						tc := sgemmCase{m: m, n: n, k: k, transA: rng.IntN(2) == 1, transB: rng.IntN(2) == 1,
							alpha: 1, beta: 0, pad: rng.IntN(3)}
						checkSgemmAgainstRef(t, rng, tc, kern, 1+rng.IntN(3))
					}
				}
			}
		})
	}
}

func TestSgemmTransposesAndScalarsMatchRef(t *testing.T) {
	// Every transpose pair × every (α, β) kind, on a shape with edge tiles in
	// both directions, several K panels (k > KC) and a stride gap.
	scalars := []struct{ alpha, beta float32 }{{1, 0}, {1, 1}, {-0.5, 0.25}, {2, -1}, {0.75, 0}}
	for name, kern := range sgemmTestSets() {
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, 4))
			for _, tA := range []bool{false, true} {
				for _, tB := range []bool{false, true} {
					for _, s := range scalars {
						tc := sgemmCase{m: 23, n: 37, k: 2*sgemmKC + 5, transA: tA, transB: tB, alpha: s.alpha, beta: s.beta, pad: 3}
						checkSgemmAgainstRef(t, rng, tc, kern, 2)
					}
				}
			}
		})
	}
}

func TestSgemmRandomShapesMatchRef(t *testing.T) {
	// Random shapes up to past MC rows and NC columns (several row blocks and
	// B panels), random transposes, scalars, strides and goroutine counts.
	for name, kern := range sgemmTestSets() {
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(5, 6))
			for range 12 {
				tc := sgemmCase{m: 1 + rng.IntN(2*sgemmMC), n: 1 + rng.IntN(120), k: 1 + rng.IntN(80),
					transA: rng.IntN(2) == 1, transB: rng.IntN(2) == 1,
					alpha: float32(rng.NormFloat64()), beta: []float32{0, 1, 0.5}[rng.IntN(3)], pad: rng.IntN(5)}
				checkSgemmAgainstRef(t, rng, tc, kern, 1+rng.IntN(4))
			}
			// One wider than a B panel.
			tc := sgemmCase{m: 7, n: sgemmNC + 21, k: 5, transB: true, alpha: 1, beta: 1, pad: 1}
			checkSgemmAgainstRef(t, rng, tc, kern, 3)
		})
	}
}

func TestSgemmDeterministicAcrossWorkers(t *testing.T) {
	// Each C element is summed by one goroutine in a fixed order, so any
	// split gives the same bits, and Sgemm's own choice agrees.
	rng := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []sgemmCase{
		{m: 301, n: 77, k: 300, alpha: 1, beta: 0},
		{m: 13, n: 200, k: 64, transA: true, transB: true, alpha: -1, beta: 0.5, pad: 2},
		// Two B panels by three K panels: six pack and six compute phases.
		{m: 40, n: sgemmNC + 40, k: 2*sgemmKC + 7, alpha: 0.5, beta: 1, pad: 1},
	} {
		o := newSgemmOperands(rng, tc)
		ref := append([]float32(nil), o.c...)
		require.NoError(t, sgemmWith(sgemmKernels(), 1, tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, o.a, o.lda, o.b, o.ldb, tc.beta, ref, o.ldc))
		for _, w := range []int{2, 3, 8} {
			got := append([]float32(nil), o.c...)
			require.NoError(t, sgemmWith(sgemmKernels(), w, tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, o.a, o.lda, o.b, o.ldb, tc.beta, got, o.ldc))
			assert.Equal(t, ref, got, "%v workers=%d", tc, w)
		}
		got := append([]float32(nil), o.c...)
		require.NoError(t, Sgemm(tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, o.a, o.lda, o.b, o.ldb, tc.beta, got, o.ldc))
		assert.Equal(t, ref, got, "%v Sgemm", tc)
	}
}

func TestSgemmPartialSliverBitwise(t *testing.T) {
	// A last sliver of fewer than MR rows is read in place as the full
	// sliver that ends at the block's last row. Each row of C is its own
	// sum, so the first m rows of a product with more rows of A (every
	// sliver whole) are the same bits, and the rows past m are not touched.
	rng := rand.New(rand.NewPCG(17, 18))
	for name, kern := range sgemmTestSets() {
		for _, tc := range []sgemmCase{
			{m: 64, n: 192, k: 2*sgemmKC + 50, transA: true, alpha: 1, beta: 0},
			{m: 64, n: 64, k: 300, transA: true, alpha: 1, beta: 1},
			{m: 13, n: 200, k: 64, transA: true, transB: true, alpha: -1, beta: 0.5, pad: 2},
			{m: 7, n: 40, k: 9, alpha: 0.5, beta: 0},
			{m: 301, n: 77, k: 300, alpha: 1, beta: 1, pad: 1},
			{m: 40, n: sgemmNC + 40, k: sgemmKC + 7, transB: true, alpha: 0.5, beta: 1},
		} {
			whole := tc
			whole.m = ceilDiv(tc.m, sgemmMR) * sgemmMR
			o := newSgemmOperands(rng, whole)
			for _, w := range []int{1, 2, 3} {
				want := append([]float32(nil), o.c...)
				got := append([]float32(nil), o.c...)
				require.NoError(t, sgemmWith(kern, w, tc.transA, tc.transB, whole.m, tc.n, tc.k, tc.alpha, o.a, o.lda, o.b, o.ldb, tc.beta, want, o.ldc))
				require.NoError(t, sgemmWith(kern, w, tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, o.a, o.lda, o.b, o.ldb, tc.beta, got, o.ldc))
				assert.Equal(t, float32Bits(want[:tc.m*o.ldc]), float32Bits(got[:tc.m*o.ldc]), "%s %v workers=%d", name, tc, w)
				assert.Equal(t, float32Bits(o.c[tc.m*o.ldc:]), float32Bits(got[tc.m*o.ldc:]), "%s %v workers=%d: rows past m", name, tc, w)
			}
		}
	}
}

// float32Bits is x's bit patterns, which compare equal where x holds the
// same NaNs.
func float32Bits(x []float32) []uint32 {
	b := make([]uint32, len(x))
	for i, v := range x {
		b[i] = math.Float32bits(v)
	}
	return b
}

func TestSgemmDegenerate(t *testing.T) {
	nan := float32(math.NaN())
	t.Run("k=0 scales C by beta", func(t *testing.T) {
		c := []float32{1, 2, 3, 4, 5, 6}
		require.NoError(t, Sgemm(false, false, 2, 3, 0, 1, nil, 1, nil, 3, 0.5, c, 3))
		assert.Equal(t, []float32{0.5, 1, 1.5, 2, 2.5, 3}, c)
	})
	t.Run("k=0 beta=0 overwrites NaN with zeros", func(t *testing.T) {
		c := []float32{nan, 2, nan, 4}
		require.NoError(t, Sgemm(true, true, 2, 2, 0, 1, nil, 2, nil, 1, 0, c, 2))
		assert.Equal(t, []float32{0, 0, 0, 0}, c)
	})
	t.Run("alpha=0 reads neither A nor B", func(t *testing.T) {
		a := []float32{nan, nan}
		b := []float32{nan, nan}
		c := []float32{1, 2, 3, 4}
		require.NoError(t, Sgemm(false, false, 2, 2, 1, 0, a, 1, b, 2, 2, c, 2))
		assert.Equal(t, []float32{2, 4, 6, 8}, c)
	})
	t.Run("empty m or n touches nothing", func(t *testing.T) {
		require.NoError(t, Sgemm(false, false, 0, 3, 4, 1, nil, 4, make([]float32, 12), 3, 0, nil, 3))
		c := []float32{7}
		require.NoError(t, Sgemm(false, false, 1, 0, 4, 1, make([]float32, 4), 4, nil, 1, 0, c, 1))
		assert.Equal(t, []float32{7}, c)
	})
	t.Run("1x1x1", func(t *testing.T) {
		c := []float32{nan}
		require.NoError(t, Sgemm(false, false, 1, 1, 1, 2, []float32{3}, 1, []float32{5}, 1, 0, c, 1))
		assert.Equal(t, []float32{30}, c)
	})
}

func TestSgemmArgumentErrors(t *testing.T) {
	a, b, c := make([]float32, 6), make([]float32, 12), make([]float32, 8)
	cases := []struct {
		name           string
		transA, transB bool
		m, n, k        int
		a              []float32
		lda            int
		b              []float32
		ldb            int
		c              []float32
		ldc            int
	}{
		{"negative m", false, false, -1, 4, 3, a, 3, b, 4, c, 4},
		{"negative n", false, false, 2, -4, 3, a, 3, b, 4, c, 4},
		{"negative k", false, false, 2, 4, -3, a, 3, b, 4, c, 4},
		{"lda < k", false, false, 2, 4, 3, a, 2, b, 4, c, 4},
		{"lda < m transposed", true, false, 2, 4, 3, a, 1, b, 4, c, 4},
		{"ldb < n", false, false, 2, 4, 3, a, 3, b, 3, c, 4},
		{"ldb < k transposed", false, true, 2, 4, 3, a, 3, b, 2, c, 4},
		{"ldc < n", false, false, 2, 4, 3, a, 3, b, 4, c, 3},
		{"ld 0 on empty", false, false, 0, 4, 0, nil, 0, nil, 4, nil, 4},
		{"short A", false, false, 2, 4, 3, a[:5], 3, b, 4, c, 4},
		{"short B", false, false, 2, 4, 3, a, 3, b[:11], 4, c, 4},
		{"short C", false, false, 2, 4, 3, a, 3, b, 4, c[:7], 4},
		{"short C for its stride", false, false, 2, 4, 3, a, 3, b, 4, c, 5},
		{"short A transposed", true, false, 2, 4, 3, a, 3, b, 4, c, 4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := append([]float32(nil), tc.c...)
			err := Sgemm(tc.transA, tc.transB, tc.m, tc.n, tc.k, 1, tc.a, tc.lda, tc.b, tc.ldb, 0, tc.c, tc.ldc)
			assert.Error(t, err)
			assert.Equal(t, before, tc.c, "C must be untouched on error")
			assert.Error(t, SgemmRef(tc.transA, tc.transB, tc.m, tc.n, tc.k, 1, tc.a, tc.lda, tc.b, tc.ldb, 0, tc.c, tc.ldc))
		})
	}
	// The exact sizes pass: the checks are not off by one.
	require.NoError(t, Sgemm(false, false, 2, 4, 3, 1, a, 3, b, 4, 0, c, 4))
	require.NoError(t, Sgemm(true, false, 2, 4, 3, 1, a, 2, b, 4, 0, c, 4))
}

func TestMatMul(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	m, k, n := 9, 31, 20
	a, _ := randMatrix(rng, m, k, 0)
	b, _ := randMatrix(rng, k, n, 0)
	c0, _ := randMatrix(rng, m, n, 0)
	for _, acc := range []bool{false, true} {
		want := append([]float32(nil), c0...)
		beta := float32(0)
		if acc {
			beta = 1
		}
		require.NoError(t, SgemmRef(false, false, m, n, k, 1, a, k, b, n, beta, want, n))
		got := append([]float32(nil), c0...)
		require.NoError(t, MatMul(a, b, got, m, k, n, acc))
		assert.InDeltaSlice(t, want, got, 1e-5, "accumulate=%v", acc)
	}
	assert.Error(t, MatMul(a, b, make([]float32, m*n-1), m, k, n, false))
	assert.Error(t, MatMul(a[:1], b, c0, m, k, n, false))
	assert.Error(t, MatMul(nil, nil, nil, -1, 0, 0, false))
	require.NoError(t, MatMul(nil, nil, nil, 0, 0, 0, false))
}

func TestSgemmTileKernelsAgree(t *testing.T) {
	// The micro-kernels alone, on every kc remainder of the 4× unroll and
	// both A layouts (packed: rs=1, ks=6; in place: rs=lda, ks=1): the
	// assembly and the portable kernel agree to rounding, and β = 0 ignores
	// NaN in C.
	rng := rand.New(rand.NewPCG(11, 12))
	for kc := 1; kc <= 13; kc++ {
		packed, _ := randMatrix(rng, kc, sgemmMR, 0)
		inPlace, lda := randMatrix(rng, sgemmMR, kc, 5)
		b, _ := randMatrix(rng, kc, sgemmNR, 0)
		for _, layout := range []struct {
			a      []float32
			rs, ks int
		}{{packed, 1, sgemmMR}, {inPlace, lda, 1}} {
			for _, beta := range []float32{0, 0.5} {
				const ldc = sgemmNR + 3
				c0, _ := randMatrix(rng, sgemmMR, sgemmNR, 3)
				if beta == 0 {
					c0[0] = float32(math.NaN())
				}
				want := append([]float32(nil), c0...)
				got := append([]float32(nil), c0...)
				sgemmTileGo(kc, layout.a, layout.rs, layout.ks, b, want, ldc, 1.5, beta)
				sgemmKernels().tile(kc, layout.a, layout.rs, layout.ks, b, got, ldc, 1.5, beta)
				assert.InDeltaSlice(t, want, got, 1e-5, "kc=%d rs=%d beta=%g", kc, layout.rs, beta)
				assert.False(t, math.IsNaN(float64(got[0])), "kc=%d rs=%d: β=0 read C", kc, layout.rs)
				if hasAVX2FMA && hasAVX512F && sgemmAVX512 != nil {
					checkTile2(t, rng, kc, layout.a, layout.rs, layout.ks, beta)
					checkTile12(t, rng, kc, layout.rs == 1, beta)
				}
			}
		}
	}
}

// checkTile2 holds the 6×32 kernel to two 6×16 tiles of the AVX2 kernel,
// bit for bit, with β = 0 never reading C.
func checkTile2(t *testing.T, rng *rand.Rand, kc int, a []float32, rs, ks int, beta float32) {
	t.Helper()
	const ldc = 2*sgemmNR + 3
	b0, _ := randMatrix(rng, kc, sgemmNR, 0)
	b1, _ := randMatrix(rng, kc, sgemmNR, 0)
	c0, _ := randMatrix(rng, sgemmMR, 2*sgemmNR, 3)
	if beta == 0 {
		c0[0], c0[sgemmNR] = float32(math.NaN()), float32(math.NaN())
	}
	want := append([]float32(nil), c0...)
	got := append([]float32(nil), c0...)
	sgemmAVX2.tile(kc, a, rs, ks, b0, want, ldc, 1.5, beta)
	sgemmAVX2.tile(kc, a, rs, ks, b1, want[sgemmNR:], ldc, 1.5, beta)
	sgemmAVX512.tile2(kc, a, rs, ks, b0, b1, got, ldc, 1.5, beta)
	assert.Equal(t, want, got, "tile2 kc=%d rs=%d beta=%g", kc, rs, beta)
}

// checkTile12 holds the 12×16 kernel to two 6×16 tiles of the AVX2 kernel
// (A slivers packed, or 12 rows of a row-major A read in place), bit for
// bit, with β = 0 never reading C.
func checkTile12(t *testing.T, rng *rand.Rand, kc int, packed bool, beta float32) {
	t.Helper()
	const ldc = sgemmNR + 5
	var a0, a1 []float32
	rs, ks := 1, sgemmMR
	if packed {
		a0, _ = randMatrix(rng, kc, sgemmMR, 0)
		a1, _ = randMatrix(rng, kc, sgemmMR, 0)
	} else {
		var lda int
		a0, lda = randMatrix(rng, 2*sgemmMR, kc, 3)
		a1, rs, ks = a0[sgemmMR*lda:], lda, 1
	}
	b, _ := randMatrix(rng, kc, sgemmNR, 0)
	c0, _ := randMatrix(rng, 2*sgemmMR, sgemmNR, 5)
	if beta == 0 {
		c0[0], c0[sgemmMR*ldc] = float32(math.NaN()), float32(math.NaN())
	}
	want := append([]float32(nil), c0...)
	got := append([]float32(nil), c0...)
	sgemmAVX2.tile(kc, a0, rs, ks, b, want, ldc, 1.5, beta)
	sgemmAVX2.tile(kc, a1, rs, ks, b, want[sgemmMR*ldc:], ldc, 1.5, beta)
	sgemmAVX512.tile12(kc, a0, a1, rs, ks, b, got, ldc, 1.5, beta)
	assert.Equal(t, want, got, "tile12 kc=%d packed=%v beta=%g", kc, packed, beta)
}

func TestSgemmVectorShapesMatchRef(t *testing.T) {
	// m = 1 or n = 1 take the dot/axpy path: every transpose pair, strided
	// vectors (ld > 1), α and β kinds, lengths around the 8 and 32 blocks.
	for name, kern := range sgemmTestSets() {
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(13, 14))
			for _, k := range []int{1, 7, 8, 9, 31, 32, 33, 70} {
				for _, tA := range []bool{false, true} {
					for _, tB := range []bool{false, true} {
						for _, mn := range [][2]int{{1, 1}, {1, 1 + rng.IntN(50)}, {1 + rng.IntN(50), 1}} {
							tc := sgemmCase{m: mn[0], n: mn[1], k: k, transA: tA, transB: tB,
								alpha: []float32{1, -0.5}[rng.IntN(2)], beta: []float32{0, 1, 0.25}[rng.IntN(3)], pad: rng.IntN(3)}
							checkSgemmAgainstRef(t, rng, tc, kern, 2)
						}
					}
				}
			}
		})
	}
}

func TestSdotSaxpyMatchFloat64(t *testing.T) {
	// The vector primitives on every length up to past two 32-blocks, against
	// float64 sums, with the k·ε bound of TestSgemm.
	rng := rand.New(rand.NewPCG(15, 16))
	for name, kern := range sgemmTestSets() {
		for n := 0; n <= 70; n++ {
			x, y := make([]float32, n), make([]float32, n+1) // y one longer: its tail must be untouched
			for i := range y {
				if i < n {
					x[i] = float32(2*rng.Float64() - 1)
				}
				y[i] = float32(2*rng.Float64() - 1)
			}
			var want, abs float64
			for i := range x {
				want += float64(x[i]) * float64(y[i])
				abs += math.Abs(float64(x[i]) * float64(y[i]))
			}
			got := kern.dot(x, y)
			assert.InDelta(t, want, float64(got), float64(n+2)*0x1p-23*abs+1e-30, "%s dot n=%d", name, n)

			yy := append([]float32(nil), y...)
			kern.axpy(-1.5, x, yy)
			for i := range n {
				assert.InDelta(t, float64(y[i])-1.5*float64(x[i]), float64(yy[i]), 1e-6, "%s axpy n=%d i=%d", name, n, i)
			}
			assert.Equal(t, y[n], yy[n], "%s axpy n=%d wrote past the end", name, n)
		}
	}
}

func TestSgemmPackCopiers(t *testing.T) {
	// The run copier of each set moves exactly kc runs of 16 floats from
	// stride ld to stride 16, and nothing past them.
	rng := rand.New(rand.NewPCG(17, 18))
	for name, kern := range sgemmTestSets() {
		for _, kc := range []int{1, 2, 7} {
			ld := sgemmNR + rng.IntN(5)
			src, _ := randMatrix(rng, kc, ld, 0)
			dst := make([]float32, kc*sgemmNR+1)
			dst[kc*sgemmNR] = sgemmSentinel
			kern.pack16(dst, src, kc, ld)
			for p := range kc {
				assert.Equal(t, src[p*ld:p*ld+sgemmNR], dst[p*sgemmNR:p*sgemmNR+sgemmNR], "%s kc=%d p=%d", name, kc, p)
			}
			assert.Equal(t, sgemmSentinel, dst[kc*sgemmNR], "%s kc=%d wrote past the end", name, kc)
		}
		// The transposing copier: 16 rows of kc, every remainder of 8.
		for _, kc := range []int{1, 7, 8, 9, 16, 23, 64} {
			ld := kc + rng.IntN(5)
			src, _ := randMatrix(rng, sgemmNR, ld, 0)
			dst := make([]float32, kc*sgemmNR+1)
			dst[kc*sgemmNR] = sgemmSentinel
			kern.packT16(dst, src, kc, ld)
			for p := range kc {
				for c := range sgemmNR {
					require.Equal(t, src[c*ld+p], dst[p*sgemmNR+c], "%s transposed kc=%d p=%d c=%d", name, kc, p, c)
				}
			}
			assert.Equal(t, sgemmSentinel, dst[kc*sgemmNR], "%s transposed kc=%d wrote past the end", name, kc)
		}
	}
}

func TestSgemmFollowsCPUSwitch(t *testing.T) {
	// Sgemm takes the package's one CPU switch (cpu.go): the assembly sets
	// where the CPU and build have them, the portable set when it is off.
	saved, saved512, savedNEON := useAVX2, useAVX512, useNEON
	defer func() { useAVX2, useAVX512, useNEON = saved, saved512, savedNEON }()
	useAVX2, useNEON = false, false
	assert.Same(t, sgemmGo, sgemmKernels())
	assert.Equal(t, "go", Impl())
	if useNEON = neonBuilt; useNEON {
		require.NotNil(t, sgemmNEON)
		assert.Same(t, sgemmNEON, sgemmKernels())
		assert.Equal(t, "neon", Impl())
	}
	useAVX2, useAVX512, useNEON = hasAVX2FMA && asmBuilt, false, false
	if useAVX2 {
		require.NotNil(t, sgemmAVX2)
		assert.Same(t, sgemmAVX2, sgemmKernels())
		assert.Equal(t, "avx2", Impl())
	}
	useAVX512 = hasAVX512F
	if useAVX2 && useAVX512 {
		require.NotNil(t, sgemmAVX512)
		assert.Same(t, sgemmAVX512, sgemmKernels())
		assert.Equal(t, "avx512", Impl())
	}
}

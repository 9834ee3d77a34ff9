//go:build !noasm

package kernels

// The arm64 NEON kernels: the Sgemm set (sgemm_arm64.s), Exp
// (exp_arm64.s), the attention's softmax row (softmax_arm64.s) and GELU
// (gelu_arm64.s). cpu.go's useNEON decides
// whether they run; every other kernel takes its portable Go path on
// arm64.

// neonBuilt says the NEON assembly is part of this build (arm64 without the
// noasm tag).
const neonBuilt = true

// The NEON set has the 6×16 tile only: the driver's tile2 and tile12 are
// AVX-512's. Each tile element is one float32 accumulator fed by fused
// multiply-adds in the order p = 0..kc-1, then α·acc (β = 0) or
// fma(α, acc, β·c), which is exactly what the Go compiler makes of
// sgemmTileGo and sgemmStore4 on arm64, where it fuses x*y + z: the NEON set
// and the portable one agree bitwise there (TestSgemmNEONMatchesGoBitwise).
func init() {
	sgemmNEON = &sgemmKernelSet{name: "neon", tile: sgemmTileNEON, dot: sdotNEONSlice, axpy: saxpyNEONSlice,
		pack16: sgemmPack16NEONSlice, packT16: sgemmPackT16Go}
}

//go:noescape
func sgemmKernelNEON(kc int, a *float32, rs, ks int, b, c *float32, ldc int, alpha, beta float32)

//go:noescape
func sdotNEON(x, y *float32, n int) float32

//go:noescape
func saxpyNEON(alpha float32, x, y *float32, n int)

//go:noescape
func sgemmPack16NEON(dst, src *float32, kc, ld int)

// expNEON is Exp on n values, n a multiple of 4, four lanes at a time
// (exp_arm64.s).
//
//go:noescape
func expNEON(dst, src *float32, n int)

// softmaxRowNEON is softmaxRow's three passes in NEON (softmax_arm64.s),
// n ≥ 1.
//
//go:noescape
func softmaxRowNEON(x *float32, n int, scale float32, p *float32)

// geluFwdNEON and geluBwdNEON are geluForwardRange and geluBackwardRange on
// n values, n a positive multiple of 4 (gelu_arm64.s).
//
//go:noescape
func geluFwdNEON(x, y *float32, n int)

//go:noescape
func geluBwdNEON(x, dy, dx *float32, n int)

// The wrappers check, cheaply, that the slices hold what the assembly will
// touch (a driver bug becomes a panic, not memory corruption), then run it.

func sgemmTileNEON(kc int, a []float32, rs, ks int, b, c []float32, ldc int, alpha, beta float32) {
	_ = a[(sgemmMR-1)*rs+(kc-1)*ks]
	_ = b[kc*sgemmNR-1]
	_ = c[(sgemmMR-1)*ldc+sgemmNR-1]
	sgemmKernelNEON(kc, &a[0], rs, ks, &b[0], &c[0], ldc, alpha, beta)
}

func sdotNEONSlice(x, y []float32) float32 {
	if len(x) == 0 {
		return 0
	}
	_ = y[len(x)-1]
	return sdotNEON(&x[0], &y[0], len(x))
}

func saxpyNEONSlice(alpha float32, x, y []float32) {
	if len(x) == 0 {
		return
	}
	_ = y[len(x)-1]
	saxpyNEON(alpha, &x[0], &y[0], len(x))
}

func sgemmPack16NEONSlice(dst, src []float32, kc, ld int) {
	_ = dst[kc*sgemmNR-1]
	_ = src[(kc-1)*ld+sgemmNR-1]
	sgemmPack16NEON(&dst[0], &src[0], kc, ld)
}

//go:build !noasm

package kernels

// The AVX2/FMA set exists in every amd64 build without the noasm tag;
// sgemmKernels uses it when the package's CPU switch useAVX2 (cpu.go) is on.
// The AVX-512 set is the AVX2 set plus the 6×32 micro-kernel, used where
// the driver has two full B slivers side by side, and the 12×16 one for a
// lone sliver with two full A slivers.
func init() {
	sgemmAVX2 = &sgemmKernelSet{name: "avx2", tile: sgemmTileAVX2, dot: sdotAVX2Slice, axpy: saxpyAVX2Slice,
		pack16: sgemmPack16AVX2Slice, packT16: sgemmPackT16AVX2}
	avx512 := *sgemmAVX2
	avx512.name, avx512.tile2, avx512.tile12 = "avx512", sgemmTile2AVX512, sgemmTile12AVX512
	sgemmAVX512 = &avx512
}

// The assembly is in sgemm_amd64.s.

//go:noescape
func sgemmKernelAVX2(kc int, a *float32, rs, ks int, b, c *float32, ldc int, alpha, beta float32)

//go:noescape
func sgemmKernel2AVX512(kc int, a *float32, rs, ks int, b0, b1, c *float32, ldc int, alpha, beta float32)

//go:noescape
func sgemmKernel12AVX512(kc int, a0, a1 *float32, rs, ks int, b, c *float32, ldc int, alpha, beta float32)

//go:noescape
func sdotAVX2(x, y *float32, n int) float32

//go:noescape
func saxpyAVX2(alpha float32, x, y *float32, n int)

//go:noescape
func sgemmPack16AVX2(dst, src *float32, kc, ld int)

// The wrappers check, cheaply, that the slices hold what the assembly will
// touch (a driver bug becomes a panic, not memory corruption), then run it.

func sgemmTileAVX2(kc int, a []float32, rs, ks int, b, c []float32, ldc int, alpha, beta float32) {
	_ = a[(sgemmMR-1)*rs+(kc-1)*ks]
	_ = b[kc*sgemmNR-1]
	_ = c[(sgemmMR-1)*ldc+sgemmNR-1]
	sgemmKernelAVX2(kc, &a[0], rs, ks, &b[0], &c[0], ldc, alpha, beta)
}

func sgemmTile2AVX512(kc int, a []float32, rs, ks int, b0, b1, c []float32, ldc int, alpha, beta float32) {
	_ = a[(sgemmMR-1)*rs+(kc-1)*ks]
	_ = b0[kc*sgemmNR-1]
	_ = b1[kc*sgemmNR-1]
	_ = c[(sgemmMR-1)*ldc+2*sgemmNR-1]
	sgemmKernel2AVX512(kc, &a[0], rs, ks, &b0[0], &b1[0], &c[0], ldc, alpha, beta)
}

func sgemmTile12AVX512(kc int, a0, a1 []float32, rs, ks int, b, c []float32, ldc int, alpha, beta float32) {
	_ = a0[(sgemmMR-1)*rs+(kc-1)*ks]
	_ = a1[(sgemmMR-1)*rs+(kc-1)*ks]
	_ = b[kc*sgemmNR-1]
	_ = c[(2*sgemmMR-1)*ldc+sgemmNR-1]
	sgemmKernel12AVX512(kc, &a0[0], &a1[0], rs, ks, &b[0], &c[0], ldc, alpha, beta)
}

func sdotAVX2Slice(x, y []float32) float32 {
	if len(x) == 0 {
		return 0
	}
	_ = y[len(x)-1]
	return sdotAVX2(&x[0], &y[0], len(x))
}

func saxpyAVX2Slice(alpha float32, x, y []float32) {
	if len(x) == 0 {
		return
	}
	_ = y[len(x)-1]
	saxpyAVX2(alpha, &x[0], &y[0], len(x))
}

func sgemmPack16AVX2Slice(dst, src []float32, kc, ld int) {
	_ = dst[kc*sgemmNR-1]
	_ = src[(kc-1)*ld+sgemmNR-1]
	sgemmPack16AVX2(&dst[0], &src[0], kc, ld)
}

// sgemmPackT16AVX2 is sgemmPackT16Go by 8×8 block transposes
// (transpose8AVX2), the last kc mod 8 columns in Go: the same copies.
func sgemmPackT16AVX2(dst, src []float32, kc, ld int) {
	_ = src[(sgemmNR-1)*ld+kc-1]
	_ = dst[kc*sgemmNR-1]
	p := 0
	for ; p+8 <= kc; p += 8 {
		transpose8AVX2(&dst[p*sgemmNR], &src[p], sgemmNR, ld)
		transpose8AVX2(&dst[p*sgemmNR+8], &src[8*ld+p], sgemmNR, ld)
	}
	if p < kc {
		sgemmPackT16Go(dst[p*sgemmNR:], src[p:], kc-p, ld)
	}
}

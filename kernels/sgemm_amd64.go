//go:build amd64 && !purego

package kernels

import "github.com/klauspost/cpuid/v2"

// sgemmHasAVX2 says the AVX2/FMA micro-kernel may run: cpuid reports AVX2 and
// FMA3 only when the OS also saves the YMM registers. (Unexported on purpose:
// it may later move to the package's common CPU-feature file.)
var sgemmHasAVX2 = cpuid.CPU.Supports(cpuid.AVX2, cpuid.FMA3)

func init() {
	if sgemmHasAVX2 {
		sgemmTile, sgemmTileName = sgemmTileAVX2, "avx2-fma"
	}
}

// sgemmKernelAVX2 is in sgemm_amd64.s.
//
//go:noescape
func sgemmKernelAVX2(kc int, a, b, c *float32, ldc int, alpha, beta float32)

// sgemmTileAVX2 checks, cheaply, that the slices hold what the assembly will
// touch (a driver bug becomes a panic, not memory corruption), then runs it.
func sgemmTileAVX2(kc int, a, b, c []float32, ldc int, alpha, beta float32) {
	_ = a[kc*sgemmMR-1]
	_ = b[kc*sgemmNR-1]
	_ = c[(sgemmMR-1)*ldc+sgemmNR-1]
	sgemmKernelAVX2(kc, &a[0], &b[0], &c[0], ldc, alpha, beta)
}

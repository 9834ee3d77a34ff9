package kernels

import "fmt"

// FMAPeak is the compute ceiling that kernel and step figures are read
// against: a register-only loop of independent fused multiply-adds
// (fma_peak_amd64.s), the most float32 flops a core can do, with no load,
// store or dependency to wait for. One call runs iters iterations of 24
// FMAs on one goroutine and returns the flops done,
//
//	flops = iters · 24 FMAs · lanes · 2   (lanes 8 for "avx2", 16 for "avx512")
//
// so GFLOP/s = flops / seconds is the peak of one core for that ISA; run on
// n goroutines at once it is the peak at n threads. On a core with two FMA
// pipes the nominal figure is 2 pipes · lanes · 2 flops per cycle (32 for
// AVX2, 64 for AVX-512 with full-width pipes, as on Zen 5) times the clock,
// so GFLOP/s divided by that gives the clock the loop actually ran at. The
// loop keeps its accumulators constant (a·b with a = 0), so any iteration
// count is safe. An ISA the CPU or build lacks is an error.
func FMAPeak(isa string, iters int) (float64, error) {
	if iters < 0 {
		return 0, fmt.Errorf("fma peak: negative iteration count %d", iters)
	}
	switch isa {
	case "avx2":
		if !hasAVX2FMA || !asmBuilt {
			return 0, fmt.Errorf("fma peak: this CPU or build has no AVX2+FMA")
		}
		fmaLoopAVX2(iters)
		return float64(iters) * 24 * 8 * 2, nil
	case "avx512":
		if !hasAVX512F || !asmBuilt {
			return 0, fmt.Errorf("fma peak: this CPU or build has no AVX-512")
		}
		fmaLoopAVX512(iters)
		return float64(iters) * 24 * 16 * 2, nil
	}
	return 0, fmt.Errorf("fma peak: unknown ISA %q (want avx2 or avx512)", isa)
}

package kernels

import (
	"os"

	"github.com/klauspost/cpuid/v2"
)

// CPU features, detected once at start-up. cpuid also checks that the OS
// saves the YMM/ZMM registers (XGETBV), so a true flag means usable.
var (
	hasAVX2FMA = cpuid.CPU.Supports(cpuid.AVX, cpuid.AVX2, cpuid.FMA3)
	hasAVX512F = cpuid.CPU.Supports(cpuid.AVX512F)
)

// useAVX2 selects the AVX2+FMA assembly kernels. It starts as "the CPU and
// the build can run them, and the environment does not set AREW_NOASM=1"
// (a run-time way to measure the portable path); tests flip it to exercise
// the pure-Go fallback on the same machine (never concurrently with running
// kernels).
var useAVX2 = hasAVX2FMA && asmBuilt && os.Getenv("AREW_NOASM") != "1"

// Impl names the fast path the kernels use on this machine: "avx2-fma"
// (Go assembly, amd64 with AVX2 and FMA3) or "go" (portable unrolled Go).
// AVX-512 is detected (see CPUFeatures) but has no kernels yet: they could
// not be tested on the machine the project is developed on.
func Impl() string {
	if useAVX2 {
		return "avx2-fma"
	}
	return "go"
}

// CPUFeatures describes the CPU and the SIMD features the kernels look at,
// for benchmark and run logs.
func CPUFeatures() string {
	yes := map[bool]string{true: "yes", false: "no"}
	return cpuid.CPU.BrandName + " (avx2+fma: " + yes[hasAVX2FMA] + ", avx512f: " + yes[hasAVX512F] + ")"
}

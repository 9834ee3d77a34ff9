package kernels

import (
	"flag"
	"fmt"
	"os"
	"runtime"

	"github.com/klauspost/cpuid/v2"
)

// CPU features, detected once at start-up. cpuid also checks that the OS
// saves the YMM/ZMM registers (XGETBV), so a true flag means usable.
var (
	hasAVX2FMA = cpuid.CPU.Supports(cpuid.AVX, cpuid.AVX2, cpuid.FMA3)
	hasAVX512F = cpuid.CPU.Supports(cpuid.AVX512F)
)

// useNEON selects the arm64 NEON assembly kernels (*_arm64.s): the build
// has them (arm64 without the noasm tag) and the environment does not set
// AREW_NOASM=1. It asks the CPU nothing: Advanced SIMD (NEON) is part of
// every ARMv8-A core, so every arm64 CPU Go runs on has it. Tests flip it
// like useAVX2.
var useNEON = neonBuilt && os.Getenv("AREW_NOASM") != "1"

// useAVX2 selects the AVX2+FMA assembly kernels. It starts as "the CPU and
// the build can run them, and the environment does not set AREW_NOASM=1"
// (a run-time way to measure the portable path); tests flip it to exercise
// the pure-Go fallback on the same machine (never concurrently with running
// kernels).
var useAVX2 = hasAVX2FMA && asmBuilt && os.Getenv("AREW_NOASM") != "1"

// useAVX512 adds the AVX-512 kernels on top of the AVX2 ones (it only
// counts while useAVX2 is on): the CPU has AVX-512F, and the environment
// does not set AREW_NOAVX512=1 (a run-time way to measure the AVX2 path).
// Tests flip it like useAVX2.
var useAVX512 = hasAVX512F && os.Getenv("AREW_NOAVX512") != "1"

// avx512On reports whether the AVX-512 kernels run now: both switches on,
// on a CPU that has AVX-512F (a test may turn useAVX512 on where it has
// not).
func avx512On() bool { return useAVX2 && useAVX512 && hasAVX512F }

// Impl names the fast path the kernels use on this machine: "avx512"
// (the AVX2 assembly plus the AVX-512 kernels, where the CPU has
// AVX-512F), "avx2" (Go assembly, amd64 with AVX2 and FMA3), "neon" (Go
// assembly on arm64 for Sgemm, Exp, the attention's softmax row and GELU,
// neon_arm64.go; the rest in Go) or "go" (portable unrolled Go).
func Impl() string {
	switch {
	case useAVX2 && useAVX512:
		return "avx512"
	case useAVX2:
		return "avx2"
	case useNEON:
		return "neon"
	}
	return "go"
}

// CPUFeatures describes the CPU and the SIMD features the kernels look at,
// for benchmark and run logs.
func CPUFeatures() string {
	yes := map[bool]string{true: "yes", false: "no"}
	if runtime.GOARCH == "arm64" {
		name := cpuid.CPU.BrandName
		if name == "" {
			name = "arm64 CPU" // cpuid finds no name under qemu-user, nor on some Linux boards
		}
		return name + " (arm64, asimd: " + yes[cpuid.CPU.Supports(cpuid.ASIMD)] + ")"
	}
	return cpuid.CPU.BrandName + " (avx2+fma: " + yes[hasAVX2FMA] + ", avx512f: " + yes[hasAVX512F] + ")"
}

// KernelSet is the line a benchmark run prints before its results, so
// every figure names the kernels that made it: "kernels: avx512 on <CPU>".
func KernelSet() string { return "kernels: " + Impl() + " on " + CPUFeatures() }

// AnnounceKernels prints KernelSet when the test binary runs benchmarks
// (-test.bench set): a TestMain calls it before m.Run.
func AnnounceKernels() {
	if !flag.Parsed() {
		flag.Parse()
	}
	if f := flag.Lookup("test.bench"); f != nil && f.Value.String() != "" {
		fmt.Println(KernelSet())
	}
}

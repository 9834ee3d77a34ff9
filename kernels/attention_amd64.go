package kernels

import "os"

// useAVX2 selects the assembly products of attention_amd64.s: set at
// start-up when the CPU and OS support AVX2 and FMA, unless the environment
// sets AREW_NOASM=1 (to measure or test the portable Go path). This is a
// small local check because kernels/cpu.go is another engineer's file; it
// belongs there, with klauspost/cpuid, once they merge.
var useAVX2 = haveAVX2FMA && os.Getenv("AREW_NOASM") != "1"

// haveAVX2FMA says whether this CPU can run the assembly at all.
var haveAVX2FMA = hasAVX2FMA()

// hasAVX2FMA asks CPUID for AVX, FMA, OSXSAVE (leaf 1) and AVX2 (leaf 7),
// and XGETBV whether the OS saves the YMM registers (XCR0 bits 1 and 2).
func hasAVX2FMA() bool {
	if maxLeaf, _, _, _ := cpuid(0, 0); maxLeaf < 7 {
		return false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const fma, osxsave, avx = 1 << 12, 1 << 27, 1 << 28
	if ecx1&(fma|osxsave|avx) != fma|osxsave|avx {
		return false
	}
	if xcr0, _ := xgetbv(); xcr0&6 != 6 {
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	return ebx7&(1<<5) != 0
}

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
func xgetbv() (eax, edx uint32)

//go:noescape
func gemvTAVX2(x, at []float32, ld, n int, y []float32)

//go:noescape
func gemvNAVX2(p, a []float32, n int, y []float32)

//go:noescape
func expShiftAVX2(x []float32, shift float32)

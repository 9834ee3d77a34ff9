//go:build !noasm

package kernels

// asmBuilt says the AVX2 assembly is part of this build (amd64 without the
// noasm tag); cpu.go combines it with the CPU's features.
const asmBuilt = true

//go:noescape
func expAVX2(dst, src []float32)

// logAVX2 writes log src[i] into dst[i] for positive normal src[i] (other
// inputs give unspecified values), 8 lanes at a time; see LOG8 in
// exp_amd64.h. Within 0.9 ulp of math.Log (TestLogAVX2 allows 2).
//
//go:noescape
func logAVX2(dst, src []float32)

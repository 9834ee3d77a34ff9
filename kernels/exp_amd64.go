//go:build !noasm

package kernels

// asmBuilt says the AVX2 assembly is part of this build (amd64 without the
// noasm tag); cpu.go combines it with the CPU's features.
const asmBuilt = true

//go:noescape
func expAVX2(dst, src []float32)

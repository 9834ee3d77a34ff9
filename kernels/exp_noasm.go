//go:build !amd64 || noasm

package kernels

// asmBuilt is false where the assembly is not built (other architectures,
// or the noasm tag, which lets amd64 test the pure-Go build).
const asmBuilt = false

func expAVX2(dst, src []float32) { panic("kernels: AVX2 assembly not built") }

func logAVX2(dst, src []float32) { panic("kernels: AVX2 assembly not built") }

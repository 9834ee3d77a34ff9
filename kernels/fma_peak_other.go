//go:build !amd64 || noasm

package kernels

func fmaLoopAVX2(iters int)   { panic("kernels: AVX2 assembly not built") }
func fmaLoopAVX512(iters int) { panic("kernels: AVX-512 assembly not built") }

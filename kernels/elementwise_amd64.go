//go:build !noasm

package kernels

// elementwiseAVX2 is Elementwise's AVX2 loop on n, a positive multiple of
// 8, values (elementwise_amd64.s).
//
//go:noescape
func elementwiseAVX2(op int, x, y, z *float32, n int)

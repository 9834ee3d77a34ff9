//go:build !noasm

package kernels

// The AdamW element loops of adamw_amd64.s: n is a multiple of 8
// (AVX-512) or 4 (AVX2), and the slices behind the pointers hold n values.

//go:noescape
func adamWAVX512(k *adamWConsts, data, grad, m, v *float32, n int)

//go:noescape
func adamWAVX2(k *adamWConsts, data, grad, m, v *float32, n int)

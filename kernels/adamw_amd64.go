//go:build !noasm

package kernels

//go:noescape
func adamWAVX512(k *adamWConsts, data, grad, m, v *float32, n int)

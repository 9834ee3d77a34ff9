//go:build !noasm

package kernels

//go:noescape
func fmaLoopAVX2(iters int)

//go:noescape
func fmaLoopAVX512(iters int)

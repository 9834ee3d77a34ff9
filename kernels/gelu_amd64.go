//go:build !noasm

package kernels

// The AVX2 GELU loops of gelu_amd64.s; n is a multiple of 8 and the
// slices behind the pointers hold n values (checked by the callers in
// gelu.go).

//go:noescape
func geluFwdAVX2(x, y *float32, n int)

//go:noescape
func geluBwdAVX2(x, dy, dx *float32, n int)

// The same with the exponentials kept by the forward and read by the
// backward (gelu_exp.go).

//go:noescape
func geluFwdExpAVX2(x, y, e *float32, n int)

//go:noescape
func geluBwdExpAVX2(x, e, dy, dx *float32, n int)

// The AVX-512 versions (gelu_avx512_amd64.s), bitwise the AVX2 ones.

//go:noescape
func geluFwdAVX512(x, y *float32, n int)

//go:noescape
func geluBwdAVX512(x, dy, dx *float32, n int)

//go:noescape
func geluFwdExpAVX512(x, y, e *float32, n int)

//go:noescape
func geluBwdExpAVX512(x, e, dy, dx *float32, n int)

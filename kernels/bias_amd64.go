//go:build !noasm

package kernels

// The bias loops of bias.go (bias_amd64.s).

//go:noescape
func addRowBiasAVX2(x, b, y *float32, n, d int)

//go:noescape
func columnSumsAVX2(grad *float32, n, d int, acc *float64)

//go:noescape
func columnSumsAVX512(grad *float32, n, ld, w int, acc *float64)

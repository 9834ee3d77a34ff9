//go:build !noasm

package kernels

// The assembly products of attention_amd64.s; cpu.go's useAVX2 decides
// whether they run.

//go:noescape
func gemvTAVX2(x, at []float32, ld, n int, y []float32)

//go:noescape
func gemvNAVX2(p, a []float32, n int, y []float32)

//go:noescape
func softmaxRowAVX2(x *float32, n int, scale float32, p *float32)

//go:noescape
func softmaxGradRowAVX2(p, dp *float32, n int, scale float64, da *float32)

// The bias loops of bias.go (bias_amd64.s).

//go:noescape
func addRowBiasAVX2(x, b, y *float32, n, d int)

//go:noescape
func columnSumsAVX2(grad *float32, n, d int, acc *float64)

// The LayerNorm forward's row loops (layernorm_amd64.s).

//go:noescape
func lnSumAVX2(row *float32, c int) float64

//go:noescape
func lnSqSumAVX2(row *float32, c int, mean float64) float64

//go:noescape
func lnApplyAVX2(row, gamma, beta, out *float32, c int, mean, rstd float64)

// The LayerNorm backward's row and column loops (layernorm_amd64.s).

//go:noescape
func lnBackSumsAVX2(row, drow, gamma *float32, c int, mean, rstd float64) (gs, gxs float64)

//go:noescape
func lnBackApplyAVX2(row, drow, gamma, out *float32, c int, mean, rstd, gMean, gxMean float64)

//go:noescape
func lnXhatSumsAVX2(dy, x *float32, n, c int, mean, rstd, acc *float64)

// The AVX-512 products (attention_avx512_amd64.s).

//go:noescape
func gemvTAVX512(x, at []float32, ld, n int, y []float32)

//go:noescape
func gemvN16AVX512(p, a []float32, n int, y []float32)

//go:noescape
func softmaxGradRowAVX512(p, dp *float32, n int, scale float64, da *float32)

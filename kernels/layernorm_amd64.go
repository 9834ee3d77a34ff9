//go:build !noasm

package kernels

// The LayerNorm forward's row loops (layernorm_amd64.s).

//go:noescape
func lnSumAVX2(row *float32, c int) float64

//go:noescape
func lnSqSumAVX2(row *float32, c int, mean float64) float64

//go:noescape
func lnApplyAVX2(row, gamma, beta, out *float32, c int, mean, rstd float64)

// lnSum4AVX2 and lnSqSum4AVX2 are lnSumAVX2 and lnSqSumAVX2 on four
// consecutive rows (row stride c) at once, bitwise theirs.
//
//go:noescape
func lnSum4AVX2(row *float32, c int, sums *[4]float64)

//go:noescape
func lnSqSum4AVX2(row *float32, c int, means, sq *[4]float64)

// The LayerNorm backward's row and column loops (layernorm_amd64.s).

//go:noescape
func lnBackSumsAVX2(row, drow, gamma *float32, c int, mean, rstd float64) (gs, gxs float64)

// lnBackSums2AVX2 is lnBackSumsAVX2 on two consecutive rows at once,
// bitwise its sums: stats = (mean0, rstd0, mean1, rstd1), sums = (gs0,
// gxs0, gs1, gxs1).
//
//go:noescape
func lnBackSums2AVX2(row, drow, gamma *float32, c int, stats, sums *[4]float64)

//go:noescape
func lnBackApplyAVX2(row, drow, gamma, out *float32, c int, mean, rstd, gMean, gxMean float64)

//go:noescape
func lnXhatSumsAVX2(dy, x *float32, n, c int, mean, rstd, acc *float64)

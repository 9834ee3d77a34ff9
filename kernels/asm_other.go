//go:build !amd64 || noasm

package kernels

// Where the assembly is not built (other architectures, the noasm tag),
// every assembly routine of the package is a stub that panics: the CPU
// switch (cpu.go) is then off, so the Go paths run and none is called.

func elementwiseAVX2(op int, x, y, z *float32, n int) { panic("kernels: AVX2 assembly not built") }

func gemvTAVX2(x, at []float32, ld, n int, y []float32) { panic("kernels: AVX2 assembly not built") }
func gemvNAVX2(p, a []float32, n int, y []float32)      { panic("kernels: AVX2 assembly not built") }

func geluFwdAVX2(x, y *float32, n int)      { panic("kernels: AVX2 assembly not built") }
func geluBwdAVX2(x, dy, dx *float32, n int) { panic("kernels: AVX2 assembly not built") }

func geluFwdExpAVX2(x, y, e *float32, n int)      { panic("kernels: AVX2 assembly not built") }
func geluBwdExpAVX2(x, e, dy, dx *float32, n int) { panic("kernels: AVX2 assembly not built") }

func softmaxRowAVX2(x *float32, n int, scale float32, p *float32) {
	panic("kernels: AVX2 assembly not built")
}

func softmaxGradRowAVX2(p, dp *float32, n int, scale float64, da *float32) {
	panic("kernels: AVX2 assembly not built")
}

func prefetchFloats(p *float32, n int) { panic("kernels: AVX2 assembly not built") }

func addRowBiasAVX2(x, b, y *float32, n, d int)            { panic("kernels: AVX2 assembly not built") }
func columnSumsAVX2(grad *float32, n, d int, acc *float64) { panic("kernels: AVX2 assembly not built") }

func lnSumAVX2(row *float32, c int) float64 { panic("kernels: AVX2 assembly not built") }
func lnSqSumAVX2(row *float32, c int, mean float64) float64 {
	panic("kernels: AVX2 assembly not built")
}
func lnApplyAVX2(row, gamma, beta, out *float32, c int, mean, rstd float64) {
	panic("kernels: AVX2 assembly not built")
}

func lnBackSumsAVX2(row, drow, gamma *float32, c int, mean, rstd float64) (gs, gxs float64) {
	panic("kernels: AVX2 assembly not built")
}

func lnBackApplyAVX2(row, drow, gamma, out *float32, c int, mean, rstd, gMean, gxMean float64) {
	panic("kernels: AVX2 assembly not built")
}

func lnXhatSumsAVX2(dy, x *float32, n, c int, mean, rstd, acc *float64) {
	panic("kernels: AVX2 assembly not built")
}

func gemvTAVX512(x, at []float32, ld, n int, y []float32) {
	panic("kernels: AVX-512 assembly not built")
}
func gemvN16AVX512(p, a []float32, n int, y []float32) { panic("kernels: AVX-512 assembly not built") }

func geluFwdAVX512(x, y *float32, n int)      { panic("kernels: AVX-512 assembly not built") }
func geluBwdAVX512(x, dy, dx *float32, n int) { panic("kernels: AVX-512 assembly not built") }

func geluFwdExpAVX512(x, y, e *float32, n int) { panic("kernels: AVX-512 assembly not built") }
func geluBwdExpAVX512(x, e, dy, dx *float32, n int) {
	panic("kernels: AVX-512 assembly not built")
}

func softmaxRowAVX512(x *float32, n int, scale float32, p *float32) {
	panic("kernels: AVX-512 assembly not built")
}

func softmaxGradRowAVX512(p, dp *float32, n int, scale float64, da *float32) {
	panic("kernels: AVX-512 assembly not built")
}

func adamWAVX512(k *adamWConsts, data, grad, m, v *float32, n int) {
	panic("kernels: AVX-512 assembly not built")
}
func adamWAVX2(k *adamWConsts, data, grad, m, v *float32, n int) {
	panic("kernels: AVX2 assembly not built")
}

func columnSumsAVX512(grad *float32, n, ld, w int, acc *float64) {
	panic("kernels: AVX-512 assembly not built")
}

func lnSum4AVX2(row *float32, c int, sums *[4]float64) { panic("kernels: AVX2 assembly not built") }
func lnSqSum4AVX2(row *float32, c int, means, sq *[4]float64) {
	panic("kernels: AVX2 assembly not built")
}
func lnBackSums2AVX2(row, drow, gamma *float32, c int, stats, sums *[4]float64) {
	panic("kernels: AVX2 assembly not built")
}

func transpose8AVX2(dst, src *float32, ldd, lds int) { panic("kernels: AVX2 assembly not built") }

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

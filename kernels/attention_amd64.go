//go:build !noasm

package kernels

// The assembly of attention: the products and softmax rows of
// attention_amd64.s, softmax_amd64.s and their AVX-512 versions; cpu.go's
// switch decides whether they run.

//go:noescape
func gemvTAVX2(x, at []float32, ld, n int, y []float32)

//go:noescape
func gemvNAVX2(p, a []float32, n int, y []float32)

//go:noescape
func softmaxRowAVX2(x *float32, n int, scale float32, p *float32)

//go:noescape
func softmaxGradRowAVX2(p, dp *float32, n int, scale float64, da *float32)

// The AVX-512 products (attention_avx512_amd64.s).

//go:noescape
func gemvTAVX512(x, at []float32, ld, n int, y []float32)

//go:noescape
func gemvN16AVX512(p, a []float32, n int, y []float32)

//go:noescape
func softmaxRowAVX512(x *float32, n int, scale float32, p *float32)

//go:noescape
func softmaxGradRowAVX512(p, dp *float32, n int, scale float64, da *float32)

// prefetchFloats asks for the cache lines of p[0:n], n ≥ 1, to be loaded
// into L1 (softmax_amd64.s).
//
//go:noescape
func prefetchFloats(p *float32, n int)

// transpose8AVX2 sets dst[i·ldd + r] = src[r·lds + i] for r, i < 8
// (attention_amd64.s).
//
//go:noescape
func transpose8AVX2(dst, src *float32, ldd, lds int)

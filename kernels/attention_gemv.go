package kernels

// The two small products the fast attention is made of, on one head's
// contiguous, zero-padded buffers: a row length hdp (head size rounded up
// to 8) and, for transposed buffers, a leading dimension ld (sequence length
// rounded up to 8). Lengths are multiples of 8 so that the AVX2 versions
// (attention_amd64.s) need no tails; the zero padding adds nothing to any
// dot product. Each output element is summed in a fixed order, so results
// do not depend on how (b, h) pairs are spread over goroutines; where the
// CPU has AVX-512, wider versions (attention_avx512_amd64.s) keep each
// element's order, so their results are bitwise the AVX2 ones.

// gemvT sets y[s] = Σ_i x[i]·at[i·ld + s] for s in [0, n): the dot products
// of x with n columns of at (hdp rows of length ld). len(x) = hdp; n is a
// multiple of 8.
func gemvT(x, at []float32, ld, n int, y []float32) {
	if len(x)%8 != 0 || n%8 != 0 || len(x) == 0 || n == 0 || n > ld || len(at) < len(x)*ld || len(y) < n {
		panic("kernels: gemvT: bad sizes") // a bug in the caller, not bad input
	}
	switch {
	case avx512On():
		gemvTAVX512(x, at, ld, n, y)
	case useAVX2:
		gemvTAVX2(x, at, ld, n, y)
	default:
		gemvTGo(x, at, ld, n, y)
	}
}

// gemvN sets y[j] = Σ_{s<n} p[s]·a[s·hdp + j] for j in [0, hdp): the
// p-weighted sum of the first n rows of a. hdp = len(y), a multiple of 8.
func gemvN(p, a []float32, n int, y []float32) {
	if len(y)%8 != 0 || len(y) == 0 || n < 0 || len(p) < n || len(a) < n*len(y) {
		panic("kernels: gemvN: bad sizes")
	}
	switch {
	case avx512On() && len(y) == 16:
		gemvN16AVX512(p, a, n, y)
	case useAVX2:
		gemvNAVX2(p, a, n, y)
	default:
		gemvNGo(p, a, n, y)
	}
}

func gemvTGo(x, at []float32, ld, n int, y []float32) {
	for s := 0; s+8 <= n; s += 8 {
		var a0, a1, a2, a3, a4, a5, a6, a7 float32
		for i, xi := range x {
			r := at[i*ld+s : i*ld+s+8]
			a0 += xi * r[0]
			a1 += xi * r[1]
			a2 += xi * r[2]
			a3 += xi * r[3]
			a4 += xi * r[4]
			a5 += xi * r[5]
			a6 += xi * r[6]
			a7 += xi * r[7]
		}
		o := y[s : s+8]
		o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7] = a0, a1, a2, a3, a4, a5, a6, a7
	}
}

func gemvNGo(p, a []float32, n int, y []float32) {
	clear(y)
	hdp := len(y)
	for s, ps := range p[:n] {
		axpy8(ps, a[s*hdp:(s+1)*hdp], y)
	}
}

// axpy8 is y += alpha·x for len(x) a multiple of 8 (len(y) ≥ len(x)).
func axpy8(alpha float32, x, y []float32) {
	y = y[:len(x)]
	for i := 0; i+8 <= len(x); i += 8 {
		xs, ys := x[i:i+8], y[i:i+8]
		ys[0] += alpha * xs[0]
		ys[1] += alpha * xs[1]
		ys[2] += alpha * xs[2]
		ys[3] += alpha * xs[3]
		ys[4] += alpha * xs[4]
		ys[5] += alpha * xs[5]
		ys[6] += alpha * xs[6]
		ys[7] += alpha * xs[7]
	}
}

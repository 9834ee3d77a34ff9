package kernels

import "math"

// The float32 exponential used by the kernels, in pure Go (exp32) and in
// AVX2/FMA assembly (exp_amd64.h, eight lanes at a time, same algorithm):
//
//	n = round(x·log2 e)                   via t = x·log2 e + (1.5·2²³ + 127)
//	r = x − n·ln2_hi − n·ln2_lo           r ∈ [−ln2/2, ln2/2] (Cody–Waite)
//	e^r ≈ 1 + c1·r + … + c6·r⁶            Horner, 6 FMAs
//	2ⁿ  = bits(t) << 23                   t's low mantissa bits hold n + 127
//	e^x = e^r · 2ⁿ
//
// The coefficients are a degree-6 minimax fit of e^r on [−ln2/2, ln2/2]
// (relative error 2.0e-9 in exact arithmetic; fitted for this package by
// iteratively reweighted least squares) rounded to float32. ln2_hi has
// few enough bits that n·ln2_hi is exact for |n| < 2¹¹.
//
// Accuracy (TestExpAccuracy sweeps 2.5 million inputs against math.Exp):
// for x ∈ [−87.33, 88.37], the range of normal float32 results, at most
// 1.0 ulp of the correctly rounded result on the AVX2 path (fused
// multiply-adds) and 1.3 ulp in pure Go; the test allows 2. Edges
// (TestExpEdges):
//
//   - x < −87.34 (results below the smallest normal float32, 1.18e-38):
//     denormal results are approximate and x ≤ −87.68 gives exactly +0;
//     the absolute error is below 1.2e-38. −Inf gives +0.
//   - x > 88.376 (127.5·ln 2) gives +Inf, a little before float32's true
//     overflow at 88.7228: e^x there is within a factor √2 of MaxFloat32.
//   - NaN gives NaN.
//
// exp_amd64.h also holds LOG8, the float32 log that finishes each forward
// row (log of the row's sum; ≤ 0.9 ulp over positive normal floats,
// TestLogAVX2).
const (
	expLog2e = 1.44269504088896341
	expMagic = 12582912 + 127 // 1.5·2²³ + the float32 exponent bias
	expLn2Hi = 0.693145751953125
	expLn2Lo = 1.428606765330187e-06
	expC1    = 1.0
	expC2    = 0.4999999403953552
	expC3    = 0.16666431725025177
	expC4    = 0.04166800156235695
	expC5    = 0.00837415549904108
	expC6    = 0.0013843653723597527
	// Inputs below expLo are raised to it: it makes n = −127, whose scale 2ⁿ
	// has a zero exponent field, so the result is exactly 0. Above expHi the
	// result is +Inf.
	expLo = -88.0
	expHi = 88.37625885009766 // the float32 below 127.5·ln 2, so n ≤ 127
)

// exp32 is the scalar pure-Go version of the kernels' exponential: the same
// steps as the assembly, float32 throughout (without fused multiply-adds, so
// it may differ from the assembly in the last bit).
func exp32(x float32) float32 {
	if x > expHi {
		return float32(math.Inf(1))
	}
	if x < expLo { // false for NaN, which flows through as NaN
		x = expLo
	}
	t := x*expLog2e + expMagic
	n := t - expMagic
	r := x - n*expLn2Hi
	r = r - n*expLn2Lo
	p := float32(expC6)
	p = p*r + expC5
	p = p*r + expC4
	p = p*r + expC3
	p = p*r + expC2
	p = p*r + expC1
	p = p*r + 1
	return p * math.Float32frombits(math.Float32bits(t)<<23)
}

// Exp writes e^src[i] into dst[i] for i < len(src), with the accuracy stated
// above, using the AVX2 path when the CPU has it, or on arm64 the NEON one
// (exp_arm64.s: whole blocks of 4, the rest in exp32; the Go compiler fuses
// exp32's multiply-adds on arm64 as the assembly does, so the two agree
// bitwise there, TestExpNEONMatchesGoBitwise). dst must be at least as
// long as src (a programmer bug otherwise: it panics). dst and src may be the
// same slice.
func Exp(dst, src []float32) {
	dst = dst[:len(src)]
	switch {
	case useAVX2:
		expAVX2(dst, src)
		return
	case useNEON && len(src) >= 4:
		n4 := len(src) &^ 3
		expNEON(&dst[0], &src[0], n4)
		dst, src = dst[n4:], src[n4:]
	}
	for i, x := range src {
		dst[i] = exp32(x)
	}
}

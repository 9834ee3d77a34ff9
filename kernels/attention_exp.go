package kernels

import "math"

// fastExp is e^x with a relative error below 1e-8 (measured against
// math.Exp in TestFastExpAccuracy), about 1.5× as fast as math.Exp here:
// the portable path of expShift, whose float32 results cannot see the
// difference.
//
// e^x = 2^n · e^r with n = round(x/ln2) and r = x − n·ln2 ∈ [−ln2/2, ln2/2];
// e^r is its Taylor polynomial to degree 7, whose remainder r⁸/8! is below
// 6e-9 on that interval. n is rounded by adding and subtracting 1.5·2⁵²,
// which leaves the integer part in the mantissa (round-half-even), cheaper
// than math.Floor here. Limits: x < −708 gives 0 (true value below the
// smallest normal float64), x > 709 gives +Inf, NaN gives NaN.
func fastExp(x float64) float64 {
	if !(x > -708) {
		if x != x {
			return x
		}
		return 0
	}
	if x > 709 {
		return math.Inf(1)
	}
	const (
		log2e      = 1.4426950408889634 // 1/ln 2
		ln2        = 0.6931471805599453
		roundMagic = 0x1.8p52
	)
	n := (x*log2e + roundMagic) - roundMagic
	r := x - n*ln2
	p := 1 + r*(1+r*(1.0/2+r*(1.0/6+r*(1.0/24+r*(1.0/120+r*(1.0/720+r*(1.0/5040)))))))
	return p * math.Float64frombits(uint64(int64(n)+1023)<<52)
}

// expUnderflow is ln of the smallest normal float32, rounded down.
const expUnderflow = -87.33654

// expShift sets x[i] = e^(x[i] − shift) in place, the exponentials of a
// softmax row. With AVX2 it runs 8 lanes at a time in float32 (relative
// error below 3e-7, see TestExpShiftAccuracy; inputs below −87.34 give 0,
// NaN stays NaN), else and for the last len%8 values it uses fastExp.
func expShift(x []float32, shift float32) {
	head := 0
	if useAVX2 {
		head = len(x) &^ 7
		expShiftAVX2(x[:head], shift)
	}
	for i := head; i < len(x); i++ {
		v := x[i] - shift
		x[i] = float32(fastExp(float64(v)))
		if v < expUnderflow {
			x[i] = 0 // as the AVX2 path: no subnormal results
		}
	}
}

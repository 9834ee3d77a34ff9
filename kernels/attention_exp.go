package kernels

// expShift sets x[i] = e^(x[i] − shift) in place: the exponentials of a
// softmax row (shift = the row's max) and of GELU's logistic form (shift =
// 0). The shift is applied in float32, then the shared vectorised Exp runs
// (exp.go: within about 1 ulp, −Inf and very negative inputs give +0, NaN
// stays NaN).
func expShift(x []float32, shift float32) {
	if shift != 0 {
		for i := range x {
			x[i] -= shift
		}
	}
	Exp(x, x)
}

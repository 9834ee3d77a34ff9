package kernels

import "math"

// GELUForward is the fast GELU forward; the contract (limits, NaN, errors)
// is GELUForwardRef's. It uses the identity ½·(1 + tanh(u)) = σ(2u) =
// 1/(1 + e^(−2u)), so one fastExp replaces math.Tanh, and runs in parallel
// over chunks above a size threshold. Elementwise, so deterministic.
func GELUForward(x, y []float32) error {
	if err := checkGELU("gelu", len(x), len(y)); err != nil {
		return err
	}
	parallelFor(len(x), 24, func(lo, hi int) {
		xs, ys := x[lo:hi], y[lo:hi]
		ys = ys[:len(xs)]
		for i, v := range xs {
			xd := float64(v)
			s := 1 / (1 + fastExp(-2*geluK*(xd+geluA*xd*xd*xd)))
			ys[i] = float32(xd * s)
			if v < -math.MaxFloat32 { // −Inf·σ is −Inf·0; the limit is 0
				ys[i] = 0
			}
		}
	})
	return nil
}

// GELUBackward is the fast GELU backward (dx = dy·gelu'(x), overwriting
// dx); see GELUBackwardRef. With s = σ(2u),
//
//	gelu'(x) = s + x·s·(1 − s)·2·√(2/π)·(1 + 3·0.044715·x²)
//
// For large |x|, s·(1 − s) is exactly 0, so the x³-sized factor meets no
// infinity; ±Inf inputs take their limits 1 and 0.
func GELUBackward(x, dy, dx []float32) error {
	if err := checkGELUBackward(len(x), len(dy), len(dx)); err != nil {
		return err
	}
	parallelFor(len(x), 30, func(lo, hi int) {
		xs, ds, out := x[lo:hi], dy[lo:hi], dx[lo:hi]
		ds, out = ds[:len(xs)], out[:len(xs)]
		for i, v := range xs {
			xd := float64(v)
			s := 1 / (1 + fastExp(-2*geluK*(xd+geluA*xd*xd*xd)))
			g := s + xd*s*(1-s)*(2*geluK)*(1+3*geluA*xd*xd)
			if v > math.MaxFloat32 || v < -math.MaxFloat32 {
				g = geluGradRef(xd)
			}
			out[i] = float32(float64(ds[i]) * g)
		}
	})
	return nil
}

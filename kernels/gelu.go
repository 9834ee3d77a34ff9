package kernels

import (
	"math"
	"sync"
)

// geluBlock is how many values the fast GELU stages at a time: the exp
// arguments live on the stack, in L1, between the three passes.
const geluBlock = 256

// GELUForward is the fast GELU forward; the contract (limits, NaN, errors)
// is GELUForwardRef's. It uses ½·(1 + tanh u) = σ(2u) = 1/(1 + e^(−2u)):
// per block, the arguments −2u are computed in float64, their exponentials
// by expShift (8 lanes at a time with AVX2), then y = x/(1 + e) in
// float32. Rounding −2u to float32 for the exp costs up to about |2u|·6e-8
// in relative accuracy, so the result agrees with the reference within
// 2e-6 relative (only in the far negative tail, where |y| < 1e-2, is it
// worse than 1e-6).
// With AVX2 (gelu_amd64.s; with AVX-512, gelu_avx512_amd64.s, its float64
// stages 8 lanes wide) the same steps run 8 values at a time, the last
// len mod 8 values in Go; the two do the same operations in the same
// precisions, so a value's result does not depend on which path (or which
// goroutine's chunk) computes it. On arm64 the NEON loop (gelu_arm64.s)
// does the same four values at a time, bitwise the Go loop there. Runs in
// parallel over chunks above a size threshold; elementwise, so
// deterministic.
func GELUForward(x, y []float32) error {
	if err := checkGELU("gelu", len(x), len(y)); err != nil {
		return err
	}
	parallelTask(&geluForwardTasks, len(x), 16, geluForwardTask{x, y})
	return nil
}

type geluForwardTask struct{ x, y []float32 }

func (t *geluForwardTask) run(lo, hi int) { geluForwardRange(t.x, t.y, lo, hi) }

var geluForwardTasks = sync.Pool{New: func() any { return new(geluForwardTask) }}

// geluForwardRange is GELUForward on elements [lo, hi).
func geluForwardRange(x, y []float32, lo, hi int) {
	if n8 := (hi - lo) &^ 7; useAVX2 && n8 > 0 {
		if useAVX512 && hasAVX512F {
			geluFwdAVX512(&x[lo], &y[lo], n8)
		} else {
			geluFwdAVX2(&x[lo], &y[lo], n8)
		}
		lo += n8
	}
	if n4 := (hi - lo) &^ 3; useNEON && n4 > 0 {
		geluFwdNEON(&x[lo], &y[lo], n4)
		lo += n4
	}
	var z [geluBlock]float32
	for b := lo; b < hi; b += geluBlock {
		xs := x[b:min(b+geluBlock, hi)]
		ys := y[b : b+len(xs)]
		e := geluExps(xs, z[:len(xs)])
		for i, v := range xs {
			ys[i] = geluFromExp(v, e[i])
		}
	}
}

// geluFromExp is gelu(x) for one value, from its e = e^(−2u(x)): x/(1 + e)
// in float32, as the assembly computes it, so the paths agree bitwise.
func geluFromExp(v, e float32) float32 {
	if v < -math.MaxFloat32 { // −Inf/(1 + e) is −Inf; the limit is 0
		return 0
	}
	return v / (1 + e)
}

// GELUBackward is the fast GELU backward (dx = dy·gelu'(x), overwriting
// dx); see GELUBackwardRef. With s = σ(2u) = 1/(1 + e^(−2u)),
//
//	gelu'(x) = s + x·s·(1 − s)·2·√(2/π)·(1 + 3·0.044715·x²)
//
// For large |x|, s·(1 − s) is exactly 0 and the x³-sized factor is skipped,
// so it meets no infinity; ±Inf inputs take their limits 1 and 0. The same
// exp staging (and accuracy) as GELUForward; the AVX2 path does σ and gelu'
// in float64 too.
func GELUBackward(x, dy, dx []float32) error {
	if err := checkGELUBackward(len(x), len(dy), len(dx)); err != nil {
		return err
	}
	parallelTask(&geluBackwardTasks, len(x), 24, geluBackwardTask{x, dy, dx})
	return nil
}

type geluBackwardTask struct{ x, dy, dx []float32 }

func (t *geluBackwardTask) run(lo, hi int) { geluBackwardRange(t.x, t.dy, t.dx, lo, hi) }

var geluBackwardTasks = sync.Pool{New: func() any { return new(geluBackwardTask) }}

// geluBackwardRange is GELUBackward on elements [lo, hi).
func geluBackwardRange(x, dy, dx []float32, lo, hi int) {
	if n8 := (hi - lo) &^ 7; useAVX2 && n8 > 0 {
		if useAVX512 && hasAVX512F {
			geluBwdAVX512(&x[lo], &dy[lo], &dx[lo], n8)
		} else {
			geluBwdAVX2(&x[lo], &dy[lo], &dx[lo], n8)
		}
		lo += n8
	}
	if n4 := (hi - lo) &^ 3; useNEON && n4 > 0 {
		geluBwdNEON(&x[lo], &dy[lo], &dx[lo], n4)
		lo += n4
	}
	var z [geluBlock]float32
	for b := lo; b < hi; b += geluBlock {
		xs := x[b:min(b+geluBlock, hi)]
		ds, out := dy[b:b+len(xs)], dx[b:b+len(xs)]
		e := geluExps(xs, z[:len(xs)])
		for i, v := range xs {
			out[i] = geluGradFromExp(v, e[i], ds[i])
		}
	}
}

// geluGradFromExp is dy·gelu'(x) for one value, from its e = e^(−2u(x)):
// the Go loop's steps, which the assembly does lane by lane.
func geluGradFromExp(v, e, dy float32) float32 {
	xd := float64(v)
	s := 1 / (1 + float64(e))
	g := s
	if ss := s * (1 - s); ss != 0 {
		g += xd * ss * (2 * geluK) * (1 + 3*geluA*xd*xd)
	}
	if v > math.MaxFloat32 || v < -math.MaxFloat32 {
		g = geluGradRef(xd)
	}
	return float32(float64(dy) * g)
}

// geluExps writes e^(−2u(x)) for each x into z and returns it; −2u is
// computed in float64 (x³ cannot overflow there) and rounded to float32.
func geluExps(x, z []float32) []float32 {
	z = z[:len(x)]
	for i, v := range x {
		xd := float64(v)
		z[i] = float32(-2 * geluK * (xd + geluA*xd*xd*xd))
	}
	expShift(z, 0)
	return z
}

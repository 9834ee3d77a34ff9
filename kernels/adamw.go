package kernels

import (
	"fmt"
	"math"
	"sync"
)

// AdamWStep is one AdamW update's scalars (optim.AdamW computes them): the
// moment rates B1, B2, the bias corrections BC1 = 1−β1^k and BC2 = 1−β2^k,
// the learning rate LR, ε, and Shrink = 1 − lr·λ_wd for a decayed
// parameter (1 otherwise).
type AdamWStep struct{ B1, B2, BC1, BC2, LR, Eps, Shrink float64 }

// AdamWUpdate applies one AdamW step to every element of a parameter, in
// float64 per element, stored in float32 (AdamWUpdateRef is the loop):
//
//	m ← β1·m + (1−β1)·g,  v ← β2·v + (1−β2)·g·g
//	p ← p·shrink − lr·(m/bc1) / (√(v/bc2) + ε)
//
// In assembly (adamw_amd64.s) the elements run 8 at a time with AVX-512
// and 4 at a time with AVX2, every operation the loop's, unfused and in its
// order (IEEE division and square root are correctly rounded at any width),
// so the results are bitwise the loop's; the last few run in the loop.
// Above a size threshold the elements are split over goroutines, which
// changes nothing either (each element is on its own). The slices must
// have the same length; a slice may be another (the same elements), as
// each element is read before it is written, in the loop's order.
func AdamWUpdate(s AdamWStep, data, grad, m, v []float32) error {
	if err := checkAdamW(data, grad, m, v); err != nil {
		return err
	}
	parallelTask(&adamWTasks, len(data), 24, adamWTask{s, data, grad, m, v})
	return nil
}

type adamWTask struct {
	s                AdamWStep
	data, grad, m, v []float32
}

var adamWTasks = sync.Pool{New: func() any { return new(adamWTask) }}

func (t *adamWTask) run(lo, hi int) {
	k := adamWConsts{t.s.B1, t.s.B2, 1 - t.s.B1, 1 - t.s.B2, t.s.BC1, t.s.BC2, t.s.LR, t.s.Eps, t.s.Shrink}
	switch n := hi - lo; {
	case avx512On() && n >= 8:
		adamWAVX512(&k, &t.data[lo], &t.grad[lo], &t.m[lo], &t.v[lo], n&^7)
		lo += n &^ 7
	case useAVX2 && n >= 4:
		adamWAVX2(&k, &t.data[lo], &t.grad[lo], &t.m[lo], &t.v[lo], n&^3)
		lo += n &^ 3
	}
	adamWUpdateGo(t.s, t.data[lo:hi], t.grad[lo:hi], t.m[lo:hi], t.v[lo:hi])
}

// adamWConsts are the assembly's scalars, in this order: β1, β2, 1−β1,
// 1−β2, bc1, bc2, lr, ε, shrink.
type adamWConsts [9]float64

// AdamWUpdateRef is AdamWUpdate as a plain loop, on one goroutine.
func AdamWUpdateRef(s AdamWStep, data, grad, m, v []float32) error {
	if err := checkAdamW(data, grad, m, v); err != nil {
		return err
	}
	adamWUpdateGo(s, data, grad, m, v)
	return nil
}

func checkAdamW(data, grad, m, v []float32) error {
	if n := len(data); len(grad) != n || len(m) != n || len(v) != n {
		return fmt.Errorf("adamw: data, grad, m, v have %d, %d, %d, %d elements, want the same", len(data), len(grad), len(m), len(v))
	}
	return nil
}

// adamWUpdateGo is the loop. Each product is converted to float64
// explicitly, which forbids the compiler to fuse it into an FMA (Go's
// rule for explicit conversions), so the loop rounds as the assembly does
// whatever GOAMD64 is.
func adamWUpdateGo(s AdamWStep, data, grad, m, v []float32) {
	c1, c2 := 1-s.B1, 1-s.B2
	grad, m, v = grad[:len(data)], m[:len(data)], v[:len(data)]
	for i, gi := range grad {
		g := float64(gi)
		mi := float64(s.B1*float64(m[i])) + float64(c1*g)
		vi := float64(s.B2*float64(v[i])) + float64(float64(c2*g)*g)
		m[i], v[i] = float32(mi), float32(vi)
		x := float64(float64(data[i]) * s.Shrink)
		x -= float64(s.LR*(mi/s.BC1)) / (math.Sqrt(vi/s.BC2) + s.Eps)
		data[i] = float32(x)
	}
}

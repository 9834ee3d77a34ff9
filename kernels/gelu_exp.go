package kernels

import "sync"

// The backward of GELU needs σ(2u) = 1/(1 + e), e = e^(−2u(x)), the same
// exponential the forward divides by, and computing e is most of either
// pass: the float64 argument and the vector exp (a backward that reads e
// instead of computing it takes under half the time; docs/bench.md). So
// a forward that has a backward coming keeps its e (GELUForwardExp), and
// the backward reads it (GELUBackwardExp), for one more stream of memory
// each. Every operation on every value is the same as in GELUForward and
// GELUBackward, so the results are theirs bit for bit
// (TestGELUExpMatchesGELUBitwise), and the AVX2 and AVX-512 loops are
// those files' loops with a store or a load of e in place of the exp.

// GELUKeepsExp reports whether the pair below runs on the same vector
// loops as GELUForward and GELUBackward on this CPU: everywhere but under
// NEON, where the pair has no loops of its own and would fall back to Go
// while the plain pair runs NEON. A caller keeps the exponentials only
// when it is true.
func GELUKeepsExp() bool { return !useNEON }

// GELUForwardExp is GELUForward that also writes e[i] = e^(−2u(x[i])),
// the float32 exponential y[i] = x[i]/(1 + e[i]) was computed from; e
// must have len(x) values.
func GELUForwardExp(x, y, e []float32) error {
	if err := checkGELUBackward(len(x), len(y), len(e)); err != nil {
		return err
	}
	parallelTask(&geluForwardExpTasks, len(x), 16, geluForwardExpTask{x, y, e})
	return nil
}

type geluForwardExpTask struct{ x, y, e []float32 }

func (t *geluForwardExpTask) run(lo, hi int) { geluForwardExpRange(t.x, t.y, t.e, lo, hi) }

var geluForwardExpTasks = sync.Pool{New: func() any { return new(geluForwardExpTask) }}

// geluForwardExpRange is GELUForwardExp on elements [lo, hi): the
// assembly on whole blocks of 8, else geluForwardRange's Go loop with e
// staged in the output.
func geluForwardExpRange(x, y, e []float32, lo, hi int) {
	if n8 := (hi - lo) &^ 7; useAVX2 && n8 > 0 {
		if useAVX512 && hasAVX512F {
			geluFwdExpAVX512(&x[lo], &y[lo], &e[lo], n8)
		} else {
			geluFwdExpAVX2(&x[lo], &y[lo], &e[lo], n8)
		}
		lo += n8
	}
	if lo == hi {
		return
	}
	xs, ys := x[lo:hi], y[lo:hi]
	es := geluExps(xs, e[lo:hi])
	for i, v := range xs {
		ys[i] = geluFromExp(v, es[i])
	}
}

// GELUBackwardExp is GELUBackward given the exponentials e that
// GELUForwardExp wrote for the same x.
func GELUBackwardExp(x, e, dy, dx []float32) error {
	if err := checkGELUBackward(len(x), len(dy), len(dx)); err != nil {
		return err
	}
	if err := checkGELUBackward(len(x), len(e), len(dx)); err != nil {
		return err
	}
	parallelTask(&geluBackwardExpTasks, len(x), 12, geluBackwardExpTask{x, e, dy, dx})
	return nil
}

type geluBackwardExpTask struct{ x, e, dy, dx []float32 }

func (t *geluBackwardExpTask) run(lo, hi int) { geluBackwardExpRange(t.x, t.e, t.dy, t.dx, lo, hi) }

var geluBackwardExpTasks = sync.Pool{New: func() any { return new(geluBackwardExpTask) }}

// geluBackwardExpRange is GELUBackwardExp on elements [lo, hi): the
// assembly on whole blocks of 8, else geluBackwardRange's Go loop.
func geluBackwardExpRange(x, e, dy, dx []float32, lo, hi int) {
	if n8 := (hi - lo) &^ 7; useAVX2 && n8 > 0 {
		if useAVX512 && hasAVX512F {
			geluBwdExpAVX512(&x[lo], &e[lo], &dy[lo], &dx[lo], n8)
		} else {
			geluBwdExpAVX2(&x[lo], &e[lo], &dy[lo], &dx[lo], n8)
		}
		lo += n8
	}
	for i := lo; i < hi; i++ {
		dx[i] = geluGradFromExp(x[i], e[i], dy[i])
	}
}

package engine

import (
	"strings"
	"unsafe"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"arew/kernels"
)

// Elementwise arithmetic into a preallocated output, as a plain loop.
//
// Why. When gorgonia writes an elementwise +, −, ⊙ or ÷ of two tensors
// into a tensor it already has (a register still holding a dead value, or
// an output kept by machine_prealloc.go), the call goes through the
// tensor package's generic dispatch, which allocates on every call (an
// option closure, pooled shape slices that the pool boxes): ~350
// allocations of a PPO update.
//
// How. For two plain float32 tensors of one shape, written into a third of
// the same shape and data order, that dispatch ends in the tensor package's
// "Recv" loop, out[i] = a[i] ∘ b[i], one IEEE operation per element.
// directArith runs that loop itself (kernels.Elementwise, 8 lanes at a
// time with AVX2: the same operation on each element), so the bits are
// the same (TestDirectArithMatchesGorgonia); for any other operands it
// declines and the op's own path runs.

// arith is which elementwise operation an op is: kernels.ElementwiseOp
// plus one (0: none of them).
type arith uint8

const (
	arithAdd = arith(kernels.ElementwiseAdd) + 1
	arithSub = arith(kernels.ElementwiseSub) + 1
	arithMul = arith(kernels.ElementwiseMul) + 1
	arithDiv = arith(kernels.ElementwiseDiv) + 1
)

// arithOf is the operation of gorgonia's elementwise arithmetic op on two
// tensors (also inside a reusedBinOp), or 0 for any other op.
func arithOf(op G.Op) arith {
	if r, ok := op.(*reusedBinOp); ok {
		op = r.Op
	}
	if !reusableBinOp(op) {
		return 0
	}
	s := op.String()
	for _, c := range []struct {
		sym string
		k   arith
	}{{"+ ", arithAdd}, {"- ", arithSub}, {"⊙ ", arithMul}, {"÷ ", arithDiv}} {
		if strings.HasPrefix(s, c.sym) {
			return c.k
		}
	}
	return 0
}

// directArith writes a ∘ b into out and reports true, if out, a and b
// (args) are dense float32 tensors of one shape and data order that need no
// iterator, and out is either the same memory as an input or disjoint from
// it; else it changes nothing and reports false.
func directArith(k arith, out G.Value, args []G.Value) bool {
	if k == 0 || len(args) != 2 {
		return false
	}
	o, ok := plainF32(out)
	a, okA := plainF32(args[0])
	b, okB := plainF32(args[1])
	if !ok || !okA || !okB || !a.Shape().Eq(b.Shape()) || !o.Shape().Eq(a.Shape()) ||
		o.DataOrder() != a.DataOrder() || b.DataOrder() != a.DataOrder() {
		return false
	}
	n := a.Shape().TotalSize()
	x, y, z := a.Float32s(), b.Float32s(), o.Float32s()
	if len(x) != n || len(y) != n || len(z) != n || !sameOrDisjoint(z, x) || !sameOrDisjoint(z, y) {
		return false
	}
	return kernels.Elementwise(kernels.ElementwiseOp(k-1), x, y, z) == nil
}

// plainF32 is v as a non-scalar float32 dense tensor that needs no iterator.
func plainF32(v G.Value) (*tensor.Dense, bool) {
	d, ok := v.(*tensor.Dense)
	if !ok || d.Dtype() != tensor.Float32 || d.IsScalar() || d.RequiresIterator() {
		return nil, false
	}
	return d, true
}

// sameOrDisjoint reports whether p and q (non-empty) start at the same
// element or do not overlap.
func sameOrDisjoint(p, q []float32) bool {
	if len(p) == 0 || len(q) == 0 {
		return true
	}
	size := unsafe.Sizeof(p[0])
	ps, qs := uintptr(unsafe.Pointer(&p[0])), uintptr(unsafe.Pointer(&q[0]))
	return ps == qs || ps+uintptr(len(p))*size <= qs || qs+uintptr(len(q))*size <= ps
}

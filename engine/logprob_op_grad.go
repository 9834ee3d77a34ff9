package engine

import (
	"fmt"
	"hash"
	"unsafe"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// tokenLogProbGradOp is the backward of tokenLogProbOp:
//
//	(logits (N,V), targets (N), out, gOut) → dlogits (N,V)
//
// gOut is shaped like out: (N) = gLogp, or (2,N) = [gLogp; gEnt]. One pass
// over the rows recomputes p[i,j] = exp(logits[i,j] − lse[i]) from the lse the
// forward saved and writes
//
//	dlogits[i,j] = gLogp[i]·(1[j=y[i]] − p[i,j]) − gEnt[i]·p[i,j]·(log p[i,j] + H[i]).
//
// out itself is read only for ordering (see tokenLogProbState).
type tokenLogProbGradOp struct {
	customOp
	st *tokenLogProbState
}

func (op *tokenLogProbGradOp) Arity() int { return 4 }

func (op *tokenLogProbGradOp) Type() hm.Type {
	dims := 1
	if op.st.withEnt {
		dims = 2
	}
	return hm.NewFnType(
		G.TensorType{Dims: 2, Of: tensor.Float32},
		G.TensorType{Dims: 1, Of: tensor.Int32},
		G.TensorType{Dims: dims, Of: tensor.Float32},
		G.TensorType{Dims: dims, Of: tensor.Float32},
		G.TensorType{Dims: 2, Of: tensor.Float32})
}

func (op *tokenLogProbGradOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	if len(in) != 4 {
		return nil, fmt.Errorf("token log-prob backward: want 4 inputs, got %d", len(in))
	}
	return op.st.dShape.Clone(), nil
}

func (op *tokenLogProbGradOp) Do(vals ...G.Value) (G.Value, error) {
	st := op.st
	if len(vals) != 4 {
		return nil, fmt.Errorf("token log-prob backward: want 4 inputs, got %d", len(vals))
	}
	logits, targets, err := st.inputs(vals)
	if err != nil {
		return nil, err
	}
	if st.seen == nil || st.seen != unsafe.SliceData(logits) {
		return nil, fmt.Errorf("token log-prob backward: run before its forward on these logits")
	}
	g, err := float32Value("token log-prob gradient", vals[3], st.outShape)
	if err != nil {
		return nil, err
	}
	gLogp, gEnt := g[:st.n], []float32(nil)
	if st.withEnt && !allZero(g[st.n:]) {
		// An unused entropy output gets an all-zero gradient: skip its term.
		gEnt = g[st.n:]
	}
	d, err := ownedDense(&st.dlogits, st.dShape)
	if err != nil {
		return nil, err
	}
	err = st.kern.backward(logits, st.n, st.v, targets, st.lse, st.ent, gLogp, gEnt, d.Float32s(), false)
	if err != nil {
		return nil, err
	}
	return d, nil
}

func (op *tokenLogProbGradOp) WriteHash(h hash.Hash) { writeOpHash(h, op) }

func (op *tokenLogProbGradOp) Hashcode() uint32 { return opHashcode(op) }

func (op *tokenLogProbGradOp) String() string {
	return fmt.Sprintf("TokenLogProbGrad{ent=%v%s}", op.st.withEnt, op.st.devSuffix())
}

var _ G.Op = (*tokenLogProbGradOp)(nil)

// inputs are the logits (N,V) and targets (N) that both the forward and
// the backward op take as their first two values.
func (st *tokenLogProbState) inputs(vals []G.Value) ([]float32, []int32, error) {
	logits, err := float32Value("token log-prob logits", vals[0], st.dShape)
	if err != nil {
		return nil, nil, err
	}
	targets, err := int32Data(vals[1], st.n)
	if err != nil {
		return nil, nil, err
	}
	return logits, targets, nil
}

func int32Data(v G.Value, want int) ([]int32, error) {
	if t, ok := v.(*tensor.Dense); ok && !t.RequiresIterator() && t.Dtype() == tensor.Int32 &&
		!t.Shape().IsScalar() && t.Shape().TotalSize() == want {
		return t.Int32s()[:want], nil
	}
	return nil, fmt.Errorf("token log-prob: targets must be %d contiguous int32, got %T", want, v)
}

func allZero(xs []float32) bool {
	for _, x := range xs {
		if x != 0 {
			return false
		}
	}
	return true
}

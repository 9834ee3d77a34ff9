package engine

import (
	"fmt"
	"hash"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// KeepAlive returns a node that reads every node of ns and does nothing:
// added last (after the backward), it keeps ns's values live to the end of
// a run. Why: gorgonia's register allocator lets an op write its result
// into an input's memory once that input has no later reader, so a stock
// op of the caller's loss (say Sub(Values, returns)) would leave the
// output node holding v − ret after Run. With a reader at the very end, no
// op may reuse the outputs' memory (model.TestRunAndForwardAgree).
func KeepAlive(ns ...*G.Node) (*G.Node, error) {
	op := &keepOp{}
	for _, n := range ns {
		op.types = append(op.types, G.TensorType{Dims: n.Dims(), Of: n.Dtype()})
	}
	return G.ApplyOp(op, ns...)
}

type keepOp struct {
	customOp
	types []hm.Type
	out   G.F32
}

func (op *keepOp) Arity() int { return len(op.types) }
func (op *keepOp) Type() hm.Type {
	return hm.NewFnType(append(append([]hm.Type(nil), op.types...), tensor.Float32)...)
}
func (op *keepOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return tensor.ScalarShape(), nil }
func (op *keepOp) Do(...G.Value) (G.Value, error)                 { return &op.out, nil }
func (op *keepOp) String() string                                 { return fmt.Sprintf("KeepAlive%d", len(op.types)) }
func (op *keepOp) WriteHash(h hash.Hash)                          { writeOpHash(h, op) }
func (op *keepOp) Hashcode() uint32                               { return opHashcode(op) }

package engine

import (
	"fmt"
	"hash"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// CopyReshape is x with shape to (the same number of elements): the values
// of gorgonia's G.Reshape(x, to), copied into a buffer the op keeps, where
// gorgonia's reshape makes a new tensor header sharing x's memory on every
// run. Its gradient is the upstream gradient's values in x's shape, in a
// kept buffer too, as gorgonia's reshape gives them
// (TestCopyReshapeMatchesReshape).
func CopyReshape(x *G.Node, to tensor.Shape) (*G.Node, error) {
	if err := checkFloat32Node("copy reshape: x", x, -1); err != nil {
		return nil, err
	}
	from := x.Shape().Clone()
	if to.Dims() < 1 || to.TotalSize() != from.TotalSize() {
		return nil, fmt.Errorf("copy reshape: %v has %d elements, shape %v has %d", from, from.TotalSize(), to, to.TotalSize())
	}
	y, err := G.ApplyOp(&reshapeCopyOp{from: from, to: to.Clone()}, x)
	if err != nil {
		return nil, fmt.Errorf("copy reshape: %w", err)
	}
	return y, nil
}

// reshapeCopyOp copies a from-shaped input into a to-shaped output; its
// backward is the same op with the shapes swapped.
type reshapeCopyOp struct {
	customOp
	from, to tensor.Shape
	grad     bool
	out      *tensor.Dense
}

func (op *reshapeCopyOp) Arity() int { return 1 }

func (op *reshapeCopyOp) Type() hm.Type {
	return hm.NewFnType(tensorType(op.from.Dims()), tensorType(op.to.Dims()))
}

func (op *reshapeCopyOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return op.to.Clone(), nil }

func (op *reshapeCopyOp) Do(vs ...G.Value) (G.Value, error) {
	if len(vs) != 1 {
		return nil, fmt.Errorf("%v: want 1 input, got %d", op, len(vs))
	}
	x, err := float32Value("copy reshape: input", vs[0], op.from)
	if err != nil {
		return nil, err
	}
	out, err := ownedDense(&op.out, op.to)
	if err != nil {
		return nil, fmt.Errorf("%v: %w", op, err)
	}
	copy(out.Float32s(), x)
	return out, nil
}

func (op *reshapeCopyOp) String() string {
	if op.grad {
		return fmt.Sprintf("CopyReshapeGrad%v→%v", op.from, op.to)
	}
	return fmt.Sprintf("CopyReshape%v→%v", op.from, op.to)
}
func (op *reshapeCopyOp) WriteHash(h hash.Hash) { writeOpHash(h, op) }
func (op *reshapeCopyOp) Hashcode() uint32      { return opHashcode(op) }

func (op *reshapeCopyOp) DiffWRT(n int) []bool { return unaryDiffWRT(n, op.grad) }

// SymDiff gives the backward node: dy copied back into x's shape.
func (op *reshapeCopyOp) SymDiff(inputs G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	if op.grad {
		return nil, fmt.Errorf("copy reshape: second derivatives are not implemented")
	}
	if len(inputs) != 1 {
		return nil, fmt.Errorf("copy reshape backward: want 1 input, got %d", len(inputs))
	}
	dx, err := G.ApplyOp(&reshapeCopyOp{from: op.to, to: op.from, grad: true}, grad)
	if err != nil {
		return nil, fmt.Errorf("copy reshape backward: %w", err)
	}
	return G.Nodes{dx}, nil
}

var _ G.SDOp = (*reshapeCopyOp)(nil)

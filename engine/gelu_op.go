package engine

import (
	"fmt"
	"hash"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"arew/kernels"
)

// GELU applies the tanh approximation of GELU (GPT-2's, PyTorch's
// nn.GELU(approximate="tanh")) elementwise to a float32 tensor of any
// shape, as one differentiable node backed by kernels.GELUForward and
// GELUBackward. The backward recomputes from x, so this op keeps no state;
// its value and gradient live in op-owned buffers reused by the next run.
func GELU(x *G.Node) (*G.Node, error) {
	if err := checkFloat32Node("gelu: x", x, -1); err != nil {
		return nil, err
	}
	y, err := G.ApplyOp(&geluOp{shape: x.Shape().Clone()}, x)
	if err != nil {
		return nil, fmt.Errorf("gelu: %w", err)
	}
	return y, nil
}

// geluOp is the forward node (grad false) or its backward (grad true, with
// children x and dy).
type geluOp struct {
	customOp
	shape tensor.Shape
	grad  bool
	out   *tensor.Dense
}

func (op *geluOp) Arity() int {
	if op.grad {
		return 2
	}
	return 1
}

func (op *geluOp) Type() hm.Type {
	t := tensorType(op.shape.Dims())
	if op.grad {
		return hm.NewFnType(t, t, t)
	}
	return hm.NewFnType(t, t)
}

func (op *geluOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return op.shape.Clone(), nil }

func (op *geluOp) Do(vs ...G.Value) (G.Value, error) {
	if len(vs) != op.Arity() {
		return nil, fmt.Errorf("%v: want %d inputs, got %d", op, op.Arity(), len(vs))
	}
	x, err := float32Value("gelu: x", vs[0], op.shape)
	if err != nil {
		return nil, err
	}
	out, err := ownedDense(&op.out, op.shape)
	if err != nil {
		return nil, fmt.Errorf("%v: %w", op, err)
	}
	if !op.grad {
		return out, kernels.GELUForward(x, out.Float32s())
	}
	dy, err := float32Value("gelu: dy", vs[1], op.shape)
	if err != nil {
		return nil, err
	}
	return out, kernels.GELUBackward(x, dy, out.Float32s())
}

func (op *geluOp) String() string {
	if op.grad {
		return fmt.Sprintf("GELUGrad%v", op.shape)
	}
	return fmt.Sprintf("GELU%v", op.shape)
}
func (op *geluOp) WriteHash(h hash.Hash) { writeOpHash(h, op) }
func (op *geluOp) Hashcode() uint32      { return opHashcode(op) }

func (op *geluOp) DiffWRT(n int) []bool { return unaryDiffWRT(n, op.grad) }

// SymDiff gives the backward node GELUGrad(x, dy); it needs only x, so
// unlike LayerNorm's it does not wait on the forward output.
func (op *geluOp) SymDiff(inputs G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	if op.grad {
		return nil, fmt.Errorf("gelu: second derivatives are not implemented")
	}
	if len(inputs) != 1 {
		return nil, fmt.Errorf("gelu backward: want 1 input, got %d", len(inputs))
	}
	dx, err := G.ApplyOp(&geluOp{shape: op.shape, grad: true}, inputs[0], grad)
	if err != nil {
		return nil, fmt.Errorf("gelu backward: %w", err)
	}
	return G.Nodes{dx}, nil
}

var _ G.SDOp = (*geluOp)(nil)

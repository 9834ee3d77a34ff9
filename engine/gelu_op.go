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
// GELUBackward. Once the graph has its backward node, the forward keeps
// the exponentials its values were computed from (kernels.GELUForwardExp)
// and the backward reads them (GELUBackwardExp) instead of computing them
// again: the same bits, in under half the backward's time. Where that
// pair has no vector loops (kernels.GELUKeepsExp: under NEON) the forward
// keeps none and the backward computes them, as the plain pair does. That state is
// the forward op's, read as op_common.go describes; values, gradients and
// exponentials live in op-owned buffers reused by the next run.
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
// children x, dy and the forward's output, which orders it after the
// forward whose exps it reads).
type geluOp struct {
	customOp
	shape tensor.Shape
	grad  bool
	out   *tensor.Dense

	keep bool      // forward: a backward will run (set by SymDiff)
	exps []float32 // forward: e^(−2u(x)) of the last run; nil when it kept none
	fwd  *geluOp   // backward: its forward
}

func (op *geluOp) Arity() int {
	if op.grad {
		return 3
	}
	return 1
}

func (op *geluOp) Type() hm.Type {
	t := tensorType(op.shape.Dims())
	if op.grad {
		return hm.NewFnType(t, t, t, t)
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
		if !op.keep || !kernels.GELUKeepsExp() {
			op.exps = nil // the backward computes its own
			return out, kernels.GELUForward(x, out.Float32s())
		}
		if len(op.exps) != len(x) {
			op.exps = make([]float32, len(x))
		}
		return out, kernels.GELUForwardExp(x, out.Float32s(), op.exps)
	}
	dy, err := float32Value("gelu: dy", vs[1], op.shape)
	if err != nil {
		return nil, err
	}
	if op.fwd.exps == nil {
		return out, kernels.GELUBackward(x, dy, out.Float32s())
	}
	if len(op.fwd.exps) != len(x) {
		return nil, fmt.Errorf("%v: the forward has not run on this shape", op)
	}
	return out, kernels.GELUBackwardExp(x, op.fwd.exps, dy, out.Float32s())
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

// SymDiff gives the backward node GELUGrad(x, dy, y), which reads the
// forward's exps; from now on the forward keeps them.
func (op *geluOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if op.grad {
		return nil, fmt.Errorf("gelu: second derivatives are not implemented")
	}
	if len(inputs) != 1 {
		return nil, fmt.Errorf("gelu backward: want 1 input, got %d", len(inputs))
	}
	op.keep = true
	dx, err := G.ApplyOp(&geluOp{shape: op.shape, grad: true, fwd: op}, inputs[0], grad, output)
	if err != nil {
		return nil, fmt.Errorf("gelu backward: %w", err)
	}
	return G.Nodes{dx}, nil
}

var _ G.SDOp = (*geluOp)(nil)

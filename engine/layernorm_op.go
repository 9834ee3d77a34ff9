package engine

import (
	"fmt"
	"hash"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"arew/kernels"
)

// LayerNorm normalises each row of x over its last axis and applies the
// gain and bias (nn.LayerNorm with biased variance):
//
//	x (N,C), gain (C), bias (C) → y (N,C),  y = (x − mean)/√(var + eps)·gain + bias
//
// all float32; eps is usually 1e-5. It is one differentiable node, backed by
// kernels.LayerNormForward/Backward (statistics in float64), replacing stock
// gorgonia's composition whose InverseSqrt gradient is wrong. The gradient
// flows to x, gain and bias. The node's value (and the gradients) live in
// buffers owned by the op and reused by the next run; mean and rstd are
// kept in the op for the backward, so one graph must not be run by two
// machines at once (see op_common.go).
func LayerNorm(x, gain, bias *G.Node, eps float64) (*G.Node, error) {
	if err := checkFloat32Node("layernorm: x", x, 2); err != nil {
		return nil, err
	}
	if err := checkFloat32Node("layernorm: gain", gain, 1); err != nil {
		return nil, err
	}
	if err := checkFloat32Node("layernorm: bias", bias, 1); err != nil {
		return nil, err
	}
	n, c := x.Shape()[0], x.Shape()[1]
	if gain.Shape()[0] != c || bias.Shape()[0] != c {
		return nil, fmt.Errorf("layernorm: x is %v, so gain and bias must be (%d), got %v and %v", x.Shape(), c, gain.Shape(), bias.Shape())
	}
	if !(eps > 0) {
		return nil, fmt.Errorf("layernorm: eps must be > 0, got %g", eps)
	}
	op := &layerNormOp{n: n, c: c, eps: eps}
	y, err := G.ApplyOp(op, x, gain, bias)
	if err != nil {
		return nil, fmt.Errorf("layernorm: %w", err)
	}
	return y, nil
}

// layerNormOp is the forward node. mean and rstd are its saved state.
type layerNormOp struct {
	customOp
	n, c       int
	eps        float64
	y          *tensor.Dense
	mean, rstd []float64
}

func (op *layerNormOp) Arity() int { return 3 }

// Type is (x: Tensor² a, gain: Tensor¹ a, bias: Tensor¹ a) → Tensor² a.
func (op *layerNormOp) Type() hm.Type {
	return hm.NewFnType(tensorType(2), tensorType(1), tensorType(1), tensorType(2))
}

func (op *layerNormOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.n, op.c}, nil
}

func (op *layerNormOp) Do(vs ...G.Value) (G.Value, error) {
	if len(vs) != 3 {
		return nil, fmt.Errorf("layernorm: want 3 inputs, got %d", len(vs))
	}
	x, err := float32Value("layernorm: x", vs[0], tensor.Shape{op.n, op.c})
	if err != nil {
		return nil, err
	}
	gain, err := float32Value("layernorm: gain", vs[1], tensor.Shape{op.c})
	if err != nil {
		return nil, err
	}
	bias, err := float32Value("layernorm: bias", vs[2], tensor.Shape{op.c})
	if err != nil {
		return nil, err
	}
	y, err := ownedDense(&op.y, tensor.Shape{op.n, op.c})
	if err != nil {
		return nil, fmt.Errorf("layernorm: %w", err)
	}
	if len(op.mean) != op.n {
		op.mean, op.rstd = make([]float64, op.n), make([]float64, op.n)
	}
	if err := kernels.LayerNormForward(x, op.n, op.c, gain, bias, op.eps, y.Float32s(), op.mean, op.rstd); err != nil {
		return nil, err
	}
	return y, nil
}

func (op *layerNormOp) String() string {
	return fmt.Sprintf("LayerNorm{n=%d, c=%d, eps=%g}", op.n, op.c, op.eps)
}
func (op *layerNormOp) WriteHash(h hash.Hash) { writeOpHash(h, op) }
func (op *layerNormOp) Hashcode() uint32      { return opHashcode(op) }

func (op *layerNormOp) DiffWRT(int) []bool { return []bool{true, true, true} }

// SymDiff returns one backward node per input. Each reads x, gain, the
// forward output (only so that it runs after the forward, whose mean and
// rstd it reads) and the upstream gradient.
func (op *layerNormOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if len(inputs) != 3 {
		return nil, fmt.Errorf("layernorm backward: want 3 inputs, got %d", len(inputs))
	}
	out := make(G.Nodes, 3)
	for wrt := range out {
		var err error
		out[wrt], err = G.ApplyOp(&layerNormGradOp{fwd: op, wrt: wrt}, inputs[0], inputs[1], output, grad)
		if err != nil {
			return nil, fmt.Errorf("layernorm backward (input %d): %w", wrt, err)
		}
	}
	return out, nil
}

// layerNormGradOp computes the gradient of the loss with respect to one
// input of its forward op (wrt 0: x, 1: gain, 2: bias), from the children
// (x, gain, y, dy) and the forward's saved mean and rstd.
type layerNormGradOp struct {
	customOp
	fwd *layerNormOp
	wrt int
	out *tensor.Dense
}

func (op *layerNormGradOp) Arity() int { return 4 }

func (op *layerNormGradOp) Type() hm.Type {
	ret := tensorType(2)
	if op.wrt > 0 {
		ret = tensorType(1)
	}
	return hm.NewFnType(tensorType(2), tensorType(1), tensorType(2), tensorType(2), ret)
}

func (op *layerNormGradOp) outShape() tensor.Shape {
	if op.wrt == 0 {
		return tensor.Shape{op.fwd.n, op.fwd.c}
	}
	return tensor.Shape{op.fwd.c}
}

func (op *layerNormGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return op.outShape(), nil }

func (op *layerNormGradOp) Do(vs ...G.Value) (G.Value, error) {
	if len(vs) != 4 {
		return nil, fmt.Errorf("layernorm backward: want 4 inputs, got %d", len(vs))
	}
	f := op.fwd
	if len(f.mean) != f.n {
		return nil, fmt.Errorf("layernorm backward: the forward has not run")
	}
	x, err := float32Value("layernorm backward: x", vs[0], tensor.Shape{f.n, f.c})
	if err != nil {
		return nil, err
	}
	gain, err := float32Value("layernorm backward: gain", vs[1], tensor.Shape{f.c})
	if err != nil {
		return nil, err
	}
	dy, err := float32Value("layernorm backward: dy", vs[3], tensor.Shape{f.n, f.c})
	if err != nil {
		return nil, err
	}
	out, err := ownedDense(&op.out, op.outShape())
	if err != nil {
		return nil, fmt.Errorf("layernorm backward: %w", err)
	}
	outs := [3][]float32{}
	outs[op.wrt] = out.Float32s()
	if err := kernels.LayerNormBackward(x, f.n, f.c, gain, f.mean, f.rstd, dy, outs[0], outs[1], outs[2]); err != nil {
		return nil, err
	}
	return out, nil
}

func (op *layerNormGradOp) String() string {
	return fmt.Sprintf("LayerNormGrad%s{n=%d, c=%d, eps=%g}", [3]string{"X", "Gain", "Bias"}[op.wrt], op.fwd.n, op.fwd.c, op.fwd.eps)
}
func (op *layerNormGradOp) WriteHash(h hash.Hash) { writeOpHash(h, op) }
func (op *layerNormGradOp) Hashcode() uint32      { return opHashcode(op) }

// The backward is not itself differentiated (no second derivatives).
func (op *layerNormGradOp) DiffWRT(n int) []bool { return make([]bool, n) }
func (op *layerNormGradOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("layernorm: second derivatives are not implemented")
}

var (
	_ G.SDOp = (*layerNormOp)(nil)
	_ G.SDOp = (*layerNormGradOp)(nil)
)

package model

import (
	"fmt"
	"hash"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"arew/engine"
	"arew/kernels"
)

// linearGELU is GELU(x·W + b), the MLP's first layer: the engine's matrix
// product, then the bias and GELU as one node (kernels.BiasGELUForward),
// bitwise linear then engine.GELU. Its backward is two nodes: dz from (x·W,
// b, dy), the bias and GELU gradient in one pass that also sums dz's
// columns, then db, which reads those sums and takes dz as its input so
// that it runs after it. Same op rules as prefix_ops.go.
func linearGELU(x, w, b *G.Node) (*G.Node, error) {
	xw, err := engine.MatMul(x, w)
	if err != nil {
		return nil, err
	}
	if xw.Dims() != 2 || b.Dims() != 1 || xw.Shape()[1] != b.Shape()[0] {
		return nil, fmt.Errorf("bias gelu: want x·W (N,D) and b (D), got %v and %v", xw.Shape(), b.Shape())
	}
	if b.Dtype() != tensor.Float32 {
		return nil, fmt.Errorf("bias gelu: want a float32 bias, got %v", b.Dtype())
	}
	return G.ApplyOp(&biasGELUOp{n: xw.Shape()[0], d: xw.Shape()[1]}, xw, b)
}

// biasGELUOp is y = gelu(x + b), x (N,D), b (D) → y (N,D).
type biasGELUOp struct {
	prefixOp
	n, d int
	out  *tensor.Dense
}

func (op *biasGELUOp) Arity() int { return 2 }
func (op *biasGELUOp) Type() hm.Type {
	return hm.NewFnType(floatType(2), floatType(1), floatType(2))
}
func (op *biasGELUOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.n, op.d}, nil
}

func (op *biasGELUOp) Do(vs ...G.Value) (G.Value, error) {
	if len(vs) != 2 {
		return nil, fmt.Errorf("%v: want 2 inputs, got %d", op, len(vs))
	}
	x, err := valueF32("bias gelu: x", vs[0], op.n*op.d)
	if err != nil {
		return nil, err
	}
	b, err := valueF32("bias gelu: b", vs[1], op.d)
	if err != nil {
		return nil, err
	}
	out, err := ownedBuffer(&op.out, tensor.Shape{op.n, op.d})
	if err != nil {
		return nil, err
	}
	return out, kernels.BiasGELUForward(x, b, out.Float32s(), op.n, op.d)
}

func (op *biasGELUOp) String() string        { return fmt.Sprintf("BiasGELU{N=%d, D=%d}", op.n, op.d) }
func (op *biasGELUOp) WriteHash(h hash.Hash) { fmt.Fprint(h, op.String()) }
func (op *biasGELUOp) Hashcode() uint32      { return hashOf(op) }
func (op *biasGELUOp) DiffWRT(n int) []bool  { return []bool{n == 2, n == 2} }

func (op *biasGELUOp) SymDiff(inputs G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	if len(inputs) != 2 {
		return nil, fmt.Errorf("%v backward: want 2 inputs, got %d", op, len(inputs))
	}
	back := &biasGELUGradOp{n: op.n, d: op.d}
	dz, err := G.ApplyOp(back, inputs[0], inputs[1], grad)
	if err != nil {
		return nil, fmt.Errorf("%v backward: %w", op, err)
	}
	db, err := G.ApplyOp(&biasGELUGradBOp{back: back}, dz)
	if err != nil {
		return nil, fmt.Errorf("%v backward: %w", op, err)
	}
	return G.Nodes{dz, db}, nil
}

// biasGELUGradOp is dz = dy·gelu'(x + b) from (x, b, dy); it keeps the
// column sums of dz for biasGELUGradBOp.
type biasGELUGradOp struct {
	prefixOp
	n, d int
	out  *tensor.Dense
	sums []float64 // (D) Σ_rows dz of the last run
}

func (op *biasGELUGradOp) Arity() int { return 3 }
func (op *biasGELUGradOp) Type() hm.Type {
	return hm.NewFnType(floatType(2), floatType(1), floatType(2), floatType(2))
}
func (op *biasGELUGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.n, op.d}, nil
}

func (op *biasGELUGradOp) Do(vs ...G.Value) (G.Value, error) {
	if len(vs) != 3 {
		return nil, fmt.Errorf("%v: want 3 inputs, got %d", op, len(vs))
	}
	x, err := valueF32("bias gelu backward: x", vs[0], op.n*op.d)
	if err != nil {
		return nil, err
	}
	b, err := valueF32("bias gelu backward: b", vs[1], op.d)
	if err != nil {
		return nil, err
	}
	dy, err := valueF32("bias gelu backward: dy", vs[2], op.n*op.d)
	if err != nil {
		return nil, err
	}
	out, err := ownedBuffer(&op.out, tensor.Shape{op.n, op.d})
	if err != nil {
		return nil, err
	}
	if len(op.sums) != op.d {
		op.sums = make([]float64, op.d)
	}
	clear(op.sums)
	return out, kernels.BiasGELUBackward(x, b, dy, out.Float32s(), op.n, op.d, op.sums)
}

func (op *biasGELUGradOp) String() string        { return fmt.Sprintf("BiasGELUGrad{N=%d, D=%d}", op.n, op.d) }
func (op *biasGELUGradOp) WriteHash(h hash.Hash) { fmt.Fprint(h, op.String()) }
func (op *biasGELUGradOp) Hashcode() uint32      { return hashOf(op) }
func (op *biasGELUGradOp) DiffWRT(n int) []bool  { return make([]bool, n) }
func (op *biasGELUGradOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("bias gelu: no second derivative")
}

// biasGELUGradBOp is db (D), the column sums its backward node kept,
// rounded to float32; its input is that node's dz, which orders it after.
type biasGELUGradBOp struct {
	prefixOp
	back *biasGELUGradOp
	out  *tensor.Dense
}

func (op *biasGELUGradBOp) Arity() int    { return 1 }
func (op *biasGELUGradBOp) Type() hm.Type { return hm.NewFnType(floatType(2), floatType(1)) }
func (op *biasGELUGradBOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.back.d}, nil
}

func (op *biasGELUGradBOp) Do(vs ...G.Value) (G.Value, error) {
	if len(op.back.sums) != op.back.d {
		return nil, fmt.Errorf("%v: the backward has not run", op)
	}
	out, err := ownedBuffer(&op.out, tensor.Shape{op.back.d})
	if err != nil {
		return nil, err
	}
	db := out.Float32s()
	for j, s := range op.back.sums {
		db[j] = float32(s)
	}
	return out, nil
}

func (op *biasGELUGradBOp) String() string {
	return fmt.Sprintf("BiasGELUGradB{N=%d, D=%d}", op.back.n, op.back.d)
}
func (op *biasGELUGradBOp) WriteHash(h hash.Hash) { fmt.Fprint(h, op.String()) }
func (op *biasGELUGradBOp) Hashcode() uint32      { return hashOf(op) }
func (op *biasGELUGradBOp) DiffWRT(n int) []bool  { return make([]bool, n) }
func (op *biasGELUGradBOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("bias gelu: no second derivative")
}

var (
	_ G.SDOp = (*biasGELUOp)(nil)
	_ G.SDOp = (*biasGELUGradOp)(nil)
	_ G.SDOp = (*biasGELUGradBOp)(nil)
)

package engine

import (
	"fmt"
	"hash"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"arew/kernels"
)

// AddBias is y = x + b with b added to every row, one differentiable node:
//
//	x (N,D), b (D) → y (N,D);   dx = dy,   db_j = Σ_i dy_ij
//
// (db summed in float64, rows in order; dx is the upstream gradient node
// itself, as for gorgonia's own Add: no copy and no node). Stock gorgonia needs Reshape +
// Repeat + Add for this: the repeat materialises an (N,D) copy of b every
// run and its backward a second reduction; BenchmarkLinearBias measures
// the difference (model/model_bench_test.go). Values live in op-owned
// buffers reused by the next run (op_common.go); the op keeps no state.
// Proof: TestAddBiasGradCheck.
func AddBias(x, b *G.Node) (*G.Node, error) {
	if x == nil || b == nil || x.Dims() != 2 || b.Dims() != 1 || x.Shape()[1] != b.Shape()[0] {
		return nil, fmt.Errorf("add bias: want x (N,D) and b (D), got %v and %v", shapeOf(x), shapeOf(b))
	}
	if x.Dtype() != tensor.Float32 || b.Dtype() != tensor.Float32 {
		return nil, fmt.Errorf("add bias: want float32, got %v and %v", x.Dtype(), b.Dtype())
	}
	return G.ApplyOp(&biasOp{n: x.Shape()[0], d: x.Shape()[1], kind: biasForward}, x, b)
}

func shapeOf(n *G.Node) tensor.Shape {
	if n == nil {
		return nil
	}
	return n.Shape()
}

type biasKind int

const (
	biasForward biasKind = iota // (x, b) → x + b
	biasGradB                   // (dy) → Σ_rows dy
)

type biasOp struct {
	customOp
	n, d  int
	kind  biasKind
	out   *tensor.Dense
	accum []float64 // (D) scratch of biasGradB
}

func (op *biasOp) Arity() int {
	if op.kind == biasForward {
		return 2
	}
	return 1
}

func (op *biasOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	m, v := G.TensorType{Dims: 2, Of: a}, G.TensorType{Dims: 1, Of: a}
	if op.kind == biasForward {
		return hm.NewFnType(m, v, m)
	}
	return hm.NewFnType(m, v)
}

func (op *biasOp) shape() tensor.Shape {
	if op.kind == biasGradB {
		return tensor.Shape{op.d}
	}
	return tensor.Shape{op.n, op.d}
}

func (op *biasOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return op.shape(), nil }

func (op *biasOp) Do(vs ...G.Value) (G.Value, error) {
	if len(vs) != op.Arity() {
		return nil, fmt.Errorf("%v: want %d inputs, got %d", op, op.Arity(), len(vs))
	}
	inShape := tensor.Shape{op.n, op.d}
	in, err := float32Value("add bias: input", vs[0], inShape)
	if err != nil {
		return nil, err
	}
	out, err := ownedDense(&op.out, op.shape())
	if err != nil {
		return nil, err
	}
	y := out.Float32s()
	switch op.kind {
	case biasForward:
		b, err := float32Value("add bias: bias", vs[1], tensor.Shape{op.d})
		if err != nil {
			return nil, err
		}
		if err := kernels.AddRowBias(in, b, y, op.n, op.d); err != nil {
			return nil, fmt.Errorf("%v: %w", op, err)
		}
	case biasGradB:
		if len(op.accum) != op.d {
			op.accum = make([]float64, op.d)
		}
		clear(op.accum)
		if err := kernels.AddColumnSums(in, op.n, op.d, op.accum); err != nil {
			return nil, fmt.Errorf("%v: %w", op, err)
		}
		for j, s := range op.accum {
			y[j] = float32(s)
		}
	}
	return out, nil
}

func (op *biasOp) String() string {
	return fmt.Sprintf("%s{N=%d, D=%d}", [2]string{"AddBias", "AddBiasGradB"}[op.kind], op.n, op.d)
}
func (op *biasOp) WriteHash(h hash.Hash) { writeOpHash(h, op) }
func (op *biasOp) Hashcode() uint32      { return opHashcode(op) }

func (op *biasOp) DiffWRT(n int) []bool {
	d := make([]bool, n)
	if op.kind == biasForward {
		for i := range d {
			d[i] = true
		}
	}
	return d
}

func (op *biasOp) SymDiff(inputs G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	if op.kind != biasForward || len(inputs) != 2 {
		return nil, fmt.Errorf("%v: no derivative", op)
	}
	db, err := G.ApplyOp(&biasOp{n: op.n, d: op.d, kind: biasGradB}, grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{grad, db}, nil
}

var _ G.SDOp = (*biasOp)(nil)

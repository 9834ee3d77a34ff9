package model

import (
	"fmt"
	"hash"
	"hash/fnv"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// addBias is y = x + b with b added to every row, one differentiable node:
//
//	x (N,D), b (D) → y (N,D);   dx = dy,   db_j = Σ_i dy_ij
//
// (db summed in float64, rows in order). Stock gorgonia needs Reshape +
// Repeat + Add for this: the repeat materialises an (N,D) copy of b every
// run and its backward a second reduction; BenchmarkLinearBias measures
// the difference. Values live in op-owned buffers reused by the next run,
// as the engine's ops do (engine/op_common.go); the op keeps no state.
func addBias(x, b *G.Node) (*G.Node, error) {
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
	biasGradX                   // (dy) → dy
	biasGradB                   // (dy) → Σ_rows dy
)

type biasOp struct {
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
	switch op.kind {
	case biasForward:
		return hm.NewFnType(m, v, m)
	case biasGradX:
		return hm.NewFnType(m, m)
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
	in, err := denseFloat32s(vs[0], op.n*op.d)
	if err != nil {
		return nil, fmt.Errorf("%v: %w", op, err)
	}
	out := ownedBuffer(&op.out, op.shape())
	y := out.Float32s()
	switch op.kind {
	case biasForward:
		b, err := denseFloat32s(vs[1], op.d)
		if err != nil {
			return nil, fmt.Errorf("%v: %w", op, err)
		}
		for i := 0; i < op.n; i++ {
			row, dst := in[i*op.d:(i+1)*op.d], y[i*op.d:(i+1)*op.d]
			for j, bj := range b {
				dst[j] = row[j] + bj
			}
		}
	case biasGradX:
		copy(y, in)
	case biasGradB:
		if len(op.accum) != op.d {
			op.accum = make([]float64, op.d)
		}
		clear(op.accum)
		for i := 0; i < op.n; i++ {
			for j, g := range in[i*op.d : (i+1)*op.d] {
				op.accum[j] += float64(g)
			}
		}
		for j, s := range op.accum {
			y[j] = float32(s)
		}
	}
	return out, nil
}

// denseFloat32s is the contiguous float32 data of a value of n elements.
func denseFloat32s(v G.Value, n int) ([]float32, error) {
	d, ok := v.(*tensor.Dense)
	if !ok || d.Dtype() != tensor.Float32 || d.Shape().TotalSize() != n {
		return nil, fmt.Errorf("want %d float32 values, got %T %v", n, v, v.Shape())
	}
	if d.RequiresIterator() {
		d = d.Materialize().(*tensor.Dense)
	}
	return d.Float32s()[:n], nil
}

// ownedBuffer returns *buf, allocated on first use and reused by later runs;
// a later in-place reshape by gorgonia is undone (see engine/op_common.go).
func ownedBuffer(buf **tensor.Dense, shape tensor.Shape) *tensor.Dense {
	if b := *buf; b != nil && !b.IsView() && len(b.Float32s()) == shape.TotalSize() {
		if !b.Shape().Eq(shape) {
			if err := b.Reshape(shape...); err != nil {
				panic(fmt.Sprintf("model: restore shape %v: %v", shape, err)) // same size: cannot fail
			}
		}
		return b
	}
	*buf = tensor.New(tensor.WithShape(shape.Clone()...), tensor.Of(tensor.Float32))
	return *buf
}

func (op *biasOp) String() string {
	return fmt.Sprintf("%s{N=%d, D=%d}", [3]string{"AddBias", "AddBiasGradX", "AddBiasGradB"}[op.kind], op.n, op.d)
}
func (op *biasOp) WriteHash(h hash.Hash) { fmt.Fprint(h, op.String()) }
func (op *biasOp) Hashcode() uint32 {
	h := fnv.New32a()
	op.WriteHash(h)
	return h.Sum32()
}
func (op *biasOp) ReturnsPtr() bool     { return false }
func (op *biasOp) CallsExtern() bool    { return false }
func (op *biasOp) OverwritesInput() int { return -1 }

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
	dx, err := G.ApplyOp(&biasOp{n: op.n, d: op.d, kind: biasGradX}, grad)
	if err != nil {
		return nil, err
	}
	db, err := G.ApplyOp(&biasOp{n: op.n, d: op.d, kind: biasGradB}, grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dx, db}, nil
}

var _ G.SDOp = (*biasOp)(nil)

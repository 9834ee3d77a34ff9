package model

import (
	"fmt"
	"hash"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// The ops of a head-rows graph (head_rows.go): the listed rows of a
// (B·T[, C]) node and back, and the last block's attention with queries
// at the listed rows. They live by the rules of the prefix graph's ops
// (prefix_ops.go): op-owned buffers reused by the next run, a backward
// that reads the forward's state taking the forward's output as an input.

// rowsOp moves rows between the trunk's layout (N = B·T rows) and the
// listed rows' (R = capacity rows), each row `width` values (a rank-1
// node when rank1): gather (scatter false) is out[k] = in[rows[k]] for the
// listed k and 0 in the unused capacity; scatter is out[rows[k]] = in[k]
// and 0 at every unlisted row. Each is the other's gradient. A gather
// also takes int32 (the targets; no gradient).
type rowsOp struct {
	prefixOp
	hr              *headRows
	n, r, width     int
	rank1, scatter  bool
	out             *tensor.Dense
	ids             *tensor.Dense // an int32 gather's output
	inShape, oShape tensor.Shape
}

func newRowsOp(hr *headRows, n int, in tensor.Shape, scatter bool) *rowsOp {
	op := &rowsOp{hr: hr, n: n, r: hr.capacity, width: 1, rank1: in.Dims() == 1, scatter: scatter}
	if !op.rank1 {
		op.width = in[1]
	}
	from, to := n, op.r
	if scatter {
		from, to = to, from
	}
	op.inShape, op.oShape = tensor.Shape{from, op.width}, tensor.Shape{to, op.width}
	if op.rank1 {
		op.inShape, op.oShape = tensor.Shape{from}, tensor.Shape{to}
	}
	return op
}

func (op *rowsOp) Arity() int { return 1 }
func (op *rowsOp) Type() hm.Type {
	d := op.inShape.Dims()
	t := G.TensorType{Dims: d, Of: hm.TypeVariable('a')}
	return hm.NewFnType(t, t)
}
func (op *rowsOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return op.oShape.Clone(), nil }

func (op *rowsOp) Do(vs ...G.Value) (G.Value, error) {
	if len(vs) != 1 {
		return nil, fmt.Errorf("%v: want 1 input, got %d", op, len(vs))
	}
	if d, ok := vs[0].(*tensor.Dense); ok && d.Dtype() == tensor.Int32 && !op.scatter {
		ids, err := valueIDs(op.String(), vs[0], op.n, 1<<31-1)
		if err != nil {
			return nil, err
		}
		if op.ids == nil {
			op.ids = tensor.New(tensor.WithShape(op.oShape.Clone()...), tensor.Of(tensor.Int32))
		}
		y := op.ids.Int32s()
		clear(y)
		for k, i := range op.hr.rows {
			y[k] = ids[i]
		}
		return op.ids, nil
	}
	x, err := valueF32(op.String(), vs[0], op.inShape.TotalSize())
	if err != nil {
		return nil, err
	}
	out, err := ownedBuffer(&op.out, op.oShape)
	if err != nil {
		return nil, err
	}
	y, w := out.Float32s(), op.width
	clear(y) // every run: a later op may have written into it in place
	for k, i := range op.hr.rows {
		src, dst := int(i)*w, k*w
		if op.scatter {
			src, dst = dst, src
		}
		copy(y[dst:dst+w], x[src:src+w])
	}
	return out, nil
}

func (op *rowsOp) String() string {
	kind := "GatherRows"
	if op.scatter {
		kind = "ScatterRows"
	}
	return fmt.Sprintf("%s{%v→%v}", kind, op.inShape, op.oShape)
}
func (op *rowsOp) WriteHash(h hash.Hash) { fmt.Fprint(h, op.String()) }
func (op *rowsOp) Hashcode() uint32      { return hashOf(op) }
func (op *rowsOp) DiffWRT(n int) []bool  { return []bool{n == 1} }

func (op *rowsOp) SymDiff(inputs G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	if len(inputs) != 1 {
		return nil, fmt.Errorf("%v backward: want 1 input, got %d", op, len(inputs))
	}
	if inputs[0].Dtype() != tensor.Float32 {
		return nil, fmt.Errorf("%v: no gradient for %v", op, inputs[0].Dtype())
	}
	d, err := G.ApplyOp(newRowsOp(op.hr, op.n, op.oShape, !op.scatter), grad)
	if err != nil {
		return nil, fmt.Errorf("%v backward: %w", op, err)
	}
	return G.Nodes{d}, nil
}

// rowsAttentionOp is the causal attention of the listed rows' queries
// over their own sequences' keys, qkv (B·T, 3C) → out (capacity, C), row
// k for the k-th listed row, 0 in the unused capacity
// (head_rows_attention.go). The probabilities are kept for the backward.
type rowsAttentionOp struct {
	prefixOp
	a            rowsAttention
	hr           *headRows
	out          *tensor.Dense
	att, scratch []float32
}

func (op *rowsAttentionOp) Arity() int    { return 1 }
func (op *rowsAttentionOp) Type() hm.Type { return hm.NewFnType(floatType(2), floatType(2)) }
func (op *rowsAttentionOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.a.capacity, op.a.c}, nil
}

func (op *rowsAttentionOp) Do(vs ...G.Value) (G.Value, error) {
	a := op.a
	qkv, err := valueF32("rows attention: qkv", vs[0], a.batch*a.seqLen*3*a.c)
	if err != nil {
		return nil, err
	}
	out, err := ownedBuffer(&op.out, tensor.Shape{a.capacity, a.c})
	if err != nil {
		return nil, err
	}
	if op.att == nil {
		op.att, op.scratch = make([]float32, a.attLen()), make([]float32, a.forwardScratchLen())
	}
	return out, a.forward(qkv, op.hr.rows, out.Float32s(), op.att, op.scratch)
}

func (op *rowsAttentionOp) String() string {
	a := op.a
	return fmt.Sprintf("RowsAttention{B=%d, T=%d, R=%d, C=%d, H=%d}", a.batch, a.seqLen, a.capacity, a.c, a.heads)
}
func (op *rowsAttentionOp) WriteHash(h hash.Hash) { fmt.Fprint(h, op.String()) }
func (op *rowsAttentionOp) Hashcode() uint32      { return hashOf(op) }
func (op *rowsAttentionOp) DiffWRT(int) []bool    { return []bool{true} }

// SymDiff: the backward node (qkv, out, dout) → dqkv; out only orders it
// after the forward, whose probabilities it reads.
func (op *rowsAttentionOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if len(inputs) != 1 {
		return nil, fmt.Errorf("rows attention backward: want 1 input, got %d", len(inputs))
	}
	d, err := G.ApplyOp(&rowsAttentionGradOp{fwd: op}, inputs[0], output, grad)
	if err != nil {
		return nil, fmt.Errorf("rows attention backward: %w", err)
	}
	return G.Nodes{d}, nil
}

// rowsAttentionGradOp is dqkv (B·T, 3C) from (qkv, out, dout): the listed
// rows' queries, and the keys and values they read.
type rowsAttentionGradOp struct {
	prefixOp
	fwd     *rowsAttentionOp
	out     *tensor.Dense
	scratch []float32
}

func (op *rowsAttentionGradOp) Arity() int { return 3 }
func (op *rowsAttentionGradOp) Type() hm.Type {
	return hm.NewFnType(floatType(2), floatType(2), floatType(2), floatType(2))
}
func (op *rowsAttentionGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	a := op.fwd.a
	return tensor.Shape{a.batch * a.seqLen, 3 * a.c}, nil
}

func (op *rowsAttentionGradOp) Do(vs ...G.Value) (G.Value, error) {
	f := op.fwd
	a := f.a
	if f.att == nil {
		return nil, fmt.Errorf("rows attention backward: the forward has not run")
	}
	qkv, err := valueF32("rows attention backward: qkv", vs[0], a.batch*a.seqLen*3*a.c)
	if err != nil {
		return nil, err
	}
	dout, err := valueF32("rows attention backward: dout", vs[2], a.capacity*a.c)
	if err != nil {
		return nil, err
	}
	d, err := ownedBuffer(&op.out, tensor.Shape{a.batch * a.seqLen, 3 * a.c})
	if err != nil {
		return nil, err
	}
	if op.scratch == nil {
		op.scratch = make([]float32, a.scratchLen())
	}
	dq := d.Float32s()
	clear(dq)
	return d, a.backward(qkv, f.hr.rows, f.att, dout, dq, op.scratch)
}

func (op *rowsAttentionGradOp) String() string        { return "Grad" + op.fwd.String() }
func (op *rowsAttentionGradOp) WriteHash(h hash.Hash) { fmt.Fprint(h, op.String()) }
func (op *rowsAttentionGradOp) Hashcode() uint32      { return hashOf(op) }
func (op *rowsAttentionGradOp) DiffWRT(n int) []bool  { return make([]bool, n) }
func (op *rowsAttentionGradOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("rows attention: no second derivative")
}

var (
	_ G.SDOp = (*rowsOp)(nil)
	_ G.SDOp = (*rowsAttentionOp)(nil)
	_ G.SDOp = (*rowsAttentionGradOp)(nil)
)

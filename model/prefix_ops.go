package model

import (
	"fmt"
	"hash"
	"hash/fnv"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// The three ops of a prefix graph (prefix.go): an embedding at explicit
// positions, attention in which each answer block sees its group's prompt,
// and the answer rows of the trunk. They live by engine's rules for
// custom ops (engine/op_common.go): op-owned output buffers reused by the
// next run, forward state read by a backward that takes the forward's
// output as an input so that it runs after it, hashes that name every
// parameter.

// prefixOp holds the methods every op here answers the same way.
type prefixOp struct{}

func (prefixOp) ReturnsPtr() bool     { return false }
func (prefixOp) CallsExtern() bool    { return false }
func (prefixOp) OverwritesInput() int { return -1 }

func hashOf(op fmt.Stringer) uint32 {
	h := fnv.New32a()
	fmt.Fprint(h, op.String())
	return h.Sum32()
}

func floatType(dims int) hm.Type { return G.TensorType{Dims: dims, Of: hm.TypeVariable('a')} }

var idsType = G.TensorType{Dims: 1, Of: tensor.Int32}

// ownedBuffer returns the op's output buffer, allocated on first use and
// reused (its shape restored if a later in-place op reshaped it).
func ownedBuffer(buf **tensor.Dense, shape tensor.Shape) (*tensor.Dense, error) {
	if b := *buf; b != nil && len(b.Float32s()) == shape.TotalSize() && !b.IsView() {
		if !b.Shape().Eq(shape) {
			if err := b.Reshape(shape.Clone()...); err != nil {
				return nil, err
			}
		}
		return b, nil
	}
	*buf = tensor.New(tensor.WithShape(shape.Clone()...), tensor.Of(tensor.Float32))
	return *buf, nil
}

// valueF32 is the row-major data of a float32 value of n elements.
func valueF32(what string, v G.Value, n int) ([]float32, error) {
	d, ok := v.(*tensor.Dense)
	if !ok || d.Dtype() != tensor.Float32 || d.Shape().TotalSize() != n {
		return nil, fmt.Errorf("%s: want %d float32, got %T", what, n, v)
	}
	if d.RequiresIterator() {
		d = d.Materialize().(*tensor.Dense)
	}
	return d.Float32s()[:n], nil
}

// valueIDs is the n ids of v, each checked to lie in [0, limit).
func valueIDs(what string, v G.Value, n, limit int) ([]int32, error) {
	d, ok := v.(*tensor.Dense)
	if !ok || d.Dtype() != tensor.Int32 || d.RequiresIterator() || d.Shape().TotalSize() != n {
		return nil, fmt.Errorf("%s: want %d contiguous int32, got %T", what, n, v)
	}
	ids := d.Int32s()[:n]
	for i, id := range ids {
		if id < 0 || int(id) >= limit {
			return nil, fmt.Errorf("%s: %d at row %d is outside [0, %d)", what, id, i, limit)
		}
	}
	return ids, nil
}

// posEmbeddingOp is x[i] = wte[ids[i]] + wpe[pos[i]] over N rows (wrt −1;
// inputs wte, wpe, ids, pos), or its gradient w.r.t. wte (wrt 0; inputs
// ids, dx) or wpe (wrt 1; inputs pos, dx): scatter-adds in row order.
type posEmbeddingOp struct {
	prefixOp
	vocab, positions, c, rows int
	wrt                       int
	out                       *tensor.Dense
}

func (op *posEmbeddingOp) outShape() tensor.Shape {
	switch op.wrt {
	case 0:
		return tensor.Shape{op.vocab, op.c}
	case 1:
		return tensor.Shape{op.positions, op.c}
	}
	return tensor.Shape{op.rows, op.c}
}

func (op *posEmbeddingOp) Arity() int {
	if op.wrt < 0 {
		return 4
	}
	return 2
}

func (op *posEmbeddingOp) Type() hm.Type {
	if op.wrt < 0 {
		return hm.NewFnType(floatType(2), floatType(2), idsType, idsType, floatType(2))
	}
	return hm.NewFnType(idsType, floatType(2), floatType(2))
}

func (op *posEmbeddingOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return op.outShape(), nil }

func (op *posEmbeddingOp) Do(vs ...G.Value) (G.Value, error) {
	if len(vs) != op.Arity() {
		return nil, fmt.Errorf("%v: want %d inputs, got %d", op, op.Arity(), len(vs))
	}
	out, err := ownedBuffer(&op.out, op.outShape())
	if err != nil {
		return nil, fmt.Errorf("%v: %w", op, err)
	}
	y, c := out.Float32s(), op.c
	if op.wrt < 0 {
		wte, err := valueF32("embedding: wte", vs[0], op.vocab*c)
		if err != nil {
			return nil, err
		}
		wpe, err := valueF32("embedding: wpe", vs[1], op.positions*c)
		if err != nil {
			return nil, err
		}
		ids, err := valueIDs("embedding: token", vs[2], op.rows, op.vocab)
		if err != nil {
			return nil, err
		}
		pos, err := valueIDs("embedding: position", vs[3], op.rows, op.positions)
		if err != nil {
			return nil, err
		}
		for i := range op.rows {
			tok, p, row := wte[int(ids[i])*c:][:c], wpe[int(pos[i])*c:][:c], y[i*c:][:c]
			for j := range row {
				row[j] = tok[j] + p[j]
			}
		}
		return out, nil
	}
	limit := op.vocab
	if op.wrt == 1 {
		limit = op.positions
	}
	idx, err := valueIDs("embedding backward: index", vs[0], op.rows, limit)
	if err != nil {
		return nil, err
	}
	dx, err := valueF32("embedding backward: dx", vs[1], op.rows*c)
	if err != nil {
		return nil, err
	}
	clear(y)
	for i, k := range idx {
		dst := y[int(k)*c:][:c]
		for j, g := range dx[i*c : (i+1)*c] {
			dst[j] += g
		}
	}
	return out, nil
}

func (op *posEmbeddingOp) String() string {
	kind := [3]string{"PosEmbedding", "PosEmbeddingGradTokens", "PosEmbeddingGradPositions"}[op.wrt+1]
	return fmt.Sprintf("%s{V=%d, P=%d, C=%d, N=%d}", kind, op.vocab, op.positions, op.c, op.rows)
}
func (op *posEmbeddingOp) WriteHash(h hash.Hash) { fmt.Fprint(h, op.String()) }
func (op *posEmbeddingOp) Hashcode() uint32      { return hashOf(op) }

func (op *posEmbeddingOp) DiffWRT(n int) []bool {
	d := make([]bool, n)
	if op.wrt < 0 && n == 4 {
		d[0], d[1] = true, true
	}
	return d
}

func (op *posEmbeddingOp) SymDiff(inputs G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	if op.wrt >= 0 || len(inputs) != 4 {
		return nil, fmt.Errorf("%v: no second derivative", op)
	}
	out := make(G.Nodes, 4)
	for wrt := range 2 {
		back := &posEmbeddingOp{vocab: op.vocab, positions: op.positions, c: op.c, rows: op.rows, wrt: wrt}
		var err error
		if out[wrt], err = G.ApplyOp(back, inputs[2+wrt], grad); err != nil {
			return nil, fmt.Errorf("%v backward: %w", op, err)
		}
	}
	return out, nil
}

// prefixAttentionOp is causal multi-head attention over a prefix graph's
// trunk rows, qkv (N, 3C) → out (N, C) (layout as engine's
// CausalSelfAttention): each prompt among its own rows, each answer block
// over its group's prompt and its own rows (prefix_attention.go). The
// probabilities are kept for the backward.
type prefixAttentionOp struct {
	prefixOp
	a          prefixAttention
	lens       []int32 // the graph's prompt lengths (its slice, refilled in place), read at each run
	out        *tensor.Dense
	attP, attA []float32
}

func (op *prefixAttentionOp) Arity() int    { return 1 }
func (op *prefixAttentionOp) Type() hm.Type { return hm.NewFnType(floatType(2), floatType(2)) }
func (op *prefixAttentionOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.a.sh.Rows(), op.a.c}, nil
}

func (op *prefixAttentionOp) Do(vs ...G.Value) (G.Value, error) {
	N, C := op.a.sh.Rows(), op.a.c
	qkv, err := valueF32("prefix attention: qkv", vs[0], N*3*C)
	if err != nil {
		return nil, err
	}
	lens := op.lens
	if len(lens) != op.a.sh.Groups {
		return nil, fmt.Errorf("prefix attention: %d prompt lengths for %d groups", len(lens), op.a.sh.Groups)
	}
	out, err := ownedBuffer(&op.out, tensor.Shape{N, C})
	if err != nil {
		return nil, err
	}
	if op.attP == nil {
		np, na := op.a.attLens()
		op.attP, op.attA = make([]float32, np), make([]float32, na)
	}
	y := out.Float32s()
	if err := op.a.prompts(qkv, lens, y, op.attP); err != nil {
		return nil, err
	}
	return out, op.a.answerAttention(qkv, lens, y, op.attA)
}

func (op *prefixAttentionOp) String() string {
	s := op.a.sh
	return fmt.Sprintf("PrefixAttention{%d×%d, %d×%d×%d, C=%d, H=%d}", s.Groups, s.Prompt, s.Groups, s.Answers, s.AnswerLen, op.a.c, op.a.heads)
}
func (op *prefixAttentionOp) WriteHash(h hash.Hash) { fmt.Fprint(h, op.String()) }
func (op *prefixAttentionOp) Hashcode() uint32      { return hashOf(op) }
func (op *prefixAttentionOp) DiffWRT(int) []bool    { return []bool{true} }

// SymDiff: the backward node (qkv, out, dout) → dqkv; out only orders it
// after the forward, whose probabilities it reads.
func (op *prefixAttentionOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if len(inputs) != 1 {
		return nil, fmt.Errorf("prefix attention backward: want 1 input, got %d", len(inputs))
	}
	d, err := G.ApplyOp(&prefixAttentionGradOp{fwd: op}, inputs[0], output, grad)
	if err != nil {
		return nil, fmt.Errorf("prefix attention backward: %w", err)
	}
	return G.Nodes{d}, nil
}

// prefixAttentionGradOp is dqkv from (qkv, out, dout): the prompts' own
// attention writes their rows, then the answers' adds to their own rows
// and to the prompt rows they read.
type prefixAttentionGradOp struct {
	prefixOp
	fwd     *prefixAttentionOp
	out     *tensor.Dense
	scratch []float32
}

func (op *prefixAttentionGradOp) Arity() int { return 3 }
func (op *prefixAttentionGradOp) Type() hm.Type {
	return hm.NewFnType(floatType(2), floatType(2), floatType(2), floatType(2))
}
func (op *prefixAttentionGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.fwd.a.sh.Rows(), 3 * op.fwd.a.c}, nil
}

func (op *prefixAttentionGradOp) Do(vs ...G.Value) (G.Value, error) {
	f := op.fwd
	N, C := f.a.sh.Rows(), f.a.c
	if f.attP == nil {
		return nil, fmt.Errorf("prefix attention backward: the forward has not run")
	}
	qkv, err := valueF32("prefix attention backward: qkv", vs[0], N*3*C)
	if err != nil {
		return nil, err
	}
	dout, err := valueF32("prefix attention backward: dout", vs[2], N*C)
	if err != nil {
		return nil, err
	}
	d, err := ownedBuffer(&op.out, tensor.Shape{N, 3 * C})
	if err != nil {
		return nil, err
	}
	dq, lens := d.Float32s(), f.lens
	if err := f.a.promptsBackward(qkv, lens, f.attP, dout, dq); err != nil {
		return nil, err
	}
	clear(dq[f.a.sh.promptRows()*3*C:])
	if op.scratch == nil {
		op.scratch = make([]float32, f.a.block()*f.a.keys())
	}
	return d, f.a.answerAttentionBackward(qkv, lens, f.attA, dout, dq, op.scratch)
}

func (op *prefixAttentionGradOp) String() string        { return "Grad" + op.fwd.String() }
func (op *prefixAttentionGradOp) WriteHash(h hash.Hash) { fmt.Fprint(h, op.String()) }
func (op *prefixAttentionGradOp) Hashcode() uint32      { return hashOf(op) }
func (op *prefixAttentionGradOp) DiffWRT(n int) []bool  { return make([]bool, n) }
func (op *prefixAttentionGradOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("prefix attention: no second derivative")
}

// tailRowsOp is rows [from, N) of x (N, C) (back false), or the gradient
// of that slice: dy in those rows, zero above (back true).
type tailRowsOp struct {
	prefixOp
	n, from, c int
	back       bool
	out        *tensor.Dense
}

func (op *tailRowsOp) outShape() tensor.Shape {
	if op.back {
		return tensor.Shape{op.n, op.c}
	}
	return tensor.Shape{op.n - op.from, op.c}
}

func (op *tailRowsOp) Arity() int    { return 1 }
func (op *tailRowsOp) Type() hm.Type { return hm.NewFnType(floatType(2), floatType(2)) }
func (op *tailRowsOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return op.outShape(), nil
}

func (op *tailRowsOp) Do(vs ...G.Value) (G.Value, error) {
	in := (op.n - op.from) * op.c
	if !op.back {
		in = op.n * op.c
	}
	x, err := valueF32(op.String(), vs[0], in)
	if err != nil {
		return nil, err
	}
	out, err := ownedBuffer(&op.out, op.outShape())
	if err != nil {
		return nil, err
	}
	y, skip := out.Float32s(), op.from*op.c
	if op.back {
		clear(y[:skip])
		copy(y[skip:], x)
	} else {
		copy(y, x[skip:])
	}
	return out, nil
}

func (op *tailRowsOp) String() string {
	kind := "TailRows"
	if op.back {
		kind = "TailRowsGrad"
	}
	return fmt.Sprintf("%s{N=%d, from=%d, C=%d}", kind, op.n, op.from, op.c)
}
func (op *tailRowsOp) WriteHash(h hash.Hash) { fmt.Fprint(h, op.String()) }
func (op *tailRowsOp) Hashcode() uint32      { return hashOf(op) }
func (op *tailRowsOp) DiffWRT(n int) []bool  { return []bool{!op.back && n == 1} }

func (op *tailRowsOp) SymDiff(inputs G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	if op.back {
		return nil, fmt.Errorf("%v: no second derivative", op)
	}
	d, err := G.ApplyOp(&tailRowsOp{n: op.n, from: op.from, c: op.c, back: true}, grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{d}, nil
}

var (
	_ G.SDOp = (*posEmbeddingOp)(nil)
	_ G.SDOp = (*prefixAttentionOp)(nil)
	_ G.SDOp = (*prefixAttentionGradOp)(nil)
	_ G.SDOp = (*tailRowsOp)(nil)
)

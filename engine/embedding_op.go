package engine

import (
	"fmt"
	"hash"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Embedding is the input layer of a GPT: token rows plus position rows,
//
//	x[b·T + t] = wte[ids[b·T + t]] + wpe[t]
//
// for wte (V,C), wpe (P,C) with P ≥ T, ids (B·T) int32 → x (B·T, C), one
// differentiable node. The backward is a scatter-add,
//
//	dwte[v] = Σ_{i: ids[i]=v} dx[i],   dwpe[t] = Σ_b dx[b·T + t]  (0 for t ≥ T)
//
// summed in float32 in row order (so deterministic). ids gets no gradient.
// An id outside [0, V) makes the machine's run return an error.
//
// Why not gorgonia's ByIndices: its backward on a 1-D index vector puts the
// gradient in the wrong rows (DESIGN.md), and position rows would need a
// second gather and a broadcast copy. Output and gradients live in op-owned
// buffers reused by the next run (see op_common.go); the op keeps no other
// state, so its backward does not wait on the forward.
func Embedding(wte, wpe, ids *G.Node, batch, seqLen int) (*G.Node, error) {
	if err := checkFloat32Node("embedding: wte", wte, 2); err != nil {
		return nil, err
	}
	if err := checkFloat32Node("embedding: wpe", wpe, 2); err != nil {
		return nil, err
	}
	if ids == nil || ids.Dtype() != tensor.Int32 || ids.Shape().Dims() != 1 {
		return nil, fmt.Errorf("embedding: ids must be a 1-D int32 node")
	}
	v, c := wte.Shape()[0], wte.Shape()[1]
	p := wpe.Shape()[0]
	switch {
	case wpe.Shape()[1] != c:
		return nil, fmt.Errorf("embedding: wte is %v but wpe is %v: widths differ", wte.Shape(), wpe.Shape())
	case batch < 1 || seqLen < 1:
		return nil, fmt.Errorf("embedding: batch and seqLen must be ≥ 1, got %d, %d", batch, seqLen)
	case seqLen > p:
		return nil, fmt.Errorf("embedding: seqLen %d exceeds the %d positions of wpe", seqLen, p)
	case ids.Shape()[0] != batch*seqLen:
		return nil, fmt.Errorf("embedding: ids has %d entries, want batch·seqLen = %d·%d", ids.Shape()[0], batch, seqLen)
	}
	op := &embeddingOp{vocab: v, positions: p, c: c, batch: batch, seqLen: seqLen, wrt: -1}
	x, err := G.ApplyOp(op, wte, wpe, ids)
	if err != nil {
		return nil, fmt.Errorf("embedding: %w", err)
	}
	return x, nil
}

// embeddingOp is the forward (wrt < 0) or the backward for wte (wrt 0) or
// wpe (wrt 1), whose children are (ids, dx).
type embeddingOp struct {
	customOp
	vocab, positions, c int
	batch, seqLen       int
	wrt                 int // -1 forward; 0, 1: gradient w.r.t. wte, wpe
	out                 *tensor.Dense
}

func (op *embeddingOp) rows() int { return op.batch * op.seqLen }

func (op *embeddingOp) outShape() tensor.Shape {
	switch op.wrt {
	case 0:
		return tensor.Shape{op.vocab, op.c}
	case 1:
		return tensor.Shape{op.positions, op.c}
	}
	return tensor.Shape{op.rows(), op.c}
}

func (op *embeddingOp) Arity() int {
	if op.wrt < 0 {
		return 3
	}
	return 2
}

func (op *embeddingOp) Type() hm.Type {
	ids := G.TensorType{Dims: 1, Of: tensor.Int32}
	if op.wrt < 0 {
		return hm.NewFnType(tensorType(2), tensorType(2), ids, tensorType(2))
	}
	return hm.NewFnType(ids, tensorType(2), tensorType(2))
}

func (op *embeddingOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return op.outShape(), nil }

func (op *embeddingOp) Do(vs ...G.Value) (G.Value, error) {
	if len(vs) != op.Arity() {
		return nil, fmt.Errorf("%v: want %d inputs, got %d", op, op.Arity(), len(vs))
	}
	idv := vs[0]
	if op.wrt < 0 {
		idv = vs[2]
	}
	ids, err := embeddingIDs(idv, op.rows(), op.vocab)
	if err != nil {
		return nil, fmt.Errorf("%v: %w", op, err)
	}
	out, err := ownedDense(&op.out, op.outShape())
	if err != nil {
		return nil, fmt.Errorf("%v: %w", op, err)
	}
	y := out.Float32s()
	if op.wrt < 0 {
		wte, err := float32Value("embedding: wte", vs[0], tensor.Shape{op.vocab, op.c})
		if err != nil {
			return nil, err
		}
		wpe, err := float32Value("embedding: wpe", vs[1], tensor.Shape{op.positions, op.c})
		if err != nil {
			return nil, err
		}
		embeddingForward(wte, wpe, ids, op.seqLen, op.c, y)
		return out, nil
	}
	dx, err := float32Value("embedding backward: dx", vs[1], tensor.Shape{op.rows(), op.c})
	if err != nil {
		return nil, err
	}
	clear(y)
	if op.wrt == 0 {
		embeddingBackwardTokens(dx, ids, op.c, y)
	} else {
		embeddingBackwardPositions(dx, op.seqLen, op.c, y)
	}
	return out, nil
}

// embeddingIDs returns the n ids of v, each checked to lie in [0, vocab).
func embeddingIDs(v G.Value, n, vocab int) ([]int32, error) {
	t, ok := v.(*tensor.Dense)
	if !ok || t.Dtype() != tensor.Int32 || t.RequiresIterator() || t.Shape().TotalSize() != n {
		return nil, fmt.Errorf("ids must be %d contiguous int32, got %T", n, v)
	}
	ids := t.Int32s()[:n]
	for i, id := range ids {
		if id < 0 || int(id) >= vocab {
			return nil, fmt.Errorf("token id %d at row %d is outside [0, %d)", id, i, vocab)
		}
	}
	return ids, nil
}

// embeddingForward: wte (V,C), wpe (P,C), ids (N) with N = B·T → x (N,C).
func embeddingForward(wte, wpe []float32, ids []int32, seqLen, c int, x []float32) {
	for i, id := range ids {
		tok := wte[int(id)*c : int(id+1)*c]
		pos := wpe[(i%seqLen)*c : (i%seqLen+1)*c]
		row := x[i*c : (i+1)*c]
		for j := range row {
			row[j] = tok[j] + pos[j]
		}
	}
}

// embeddingBackwardTokens: dx (N,C), ids (N) → dwte (V,C) += scatter of dx.
func embeddingBackwardTokens(dx []float32, ids []int32, c int, dwte []float32) {
	for i, id := range ids {
		dst := dwte[int(id)*c : int(id+1)*c]
		for j, g := range dx[i*c : (i+1)*c] {
			dst[j] += g
		}
	}
}

// embeddingBackwardPositions: dx (N,C) → dwpe (P,C), row t += Σ_b dx[b·T+t].
func embeddingBackwardPositions(dx []float32, seqLen, c int, dwpe []float32) {
	for i := 0; i < len(dx)/c; i++ {
		dst := dwpe[(i%seqLen)*c : (i%seqLen+1)*c]
		for j, g := range dx[i*c : (i+1)*c] {
			dst[j] += g
		}
	}
}

func (op *embeddingOp) String() string {
	kind := "Embedding"
	if op.wrt >= 0 {
		kind = [2]string{"EmbeddingGradTokens", "EmbeddingGradPositions"}[op.wrt]
	}
	return fmt.Sprintf("%s{V=%d, P=%d, C=%d, B=%d, T=%d}", kind, op.vocab, op.positions, op.c, op.batch, op.seqLen)
}
func (op *embeddingOp) WriteHash(h hash.Hash) { writeOpHash(h, op) }
func (op *embeddingOp) Hashcode() uint32      { return opHashcode(op) }

func (op *embeddingOp) DiffWRT(n int) []bool {
	d := make([]bool, n)
	if op.wrt < 0 && n == 3 {
		d[0], d[1] = true, true
	}
	return d
}

// SymDiff returns the gradient nodes for wte and wpe (none for ids).
func (op *embeddingOp) SymDiff(inputs G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	if op.wrt >= 0 {
		return nil, fmt.Errorf("embedding: second derivatives are not implemented")
	}
	if len(inputs) != 3 {
		return nil, fmt.Errorf("embedding backward: want 3 inputs, got %d", len(inputs))
	}
	out := make(G.Nodes, 3)
	for wrt := range 2 {
		back := *op
		back.wrt, back.out = wrt, nil
		var err error
		if out[wrt], err = G.ApplyOp(&back, inputs[2], grad); err != nil {
			return nil, fmt.Errorf("embedding backward (input %d): %w", wrt, err)
		}
	}
	return out, nil
}

var _ G.SDOp = (*embeddingOp)(nil)

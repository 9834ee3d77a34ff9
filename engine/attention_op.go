package engine

import (
	"fmt"
	"hash"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"arew/kernels"
)

// CausalSelfAttention is the core of causal multi-head self-attention, as
// one differentiable node backed by kernels.AttentionForward/Backward:
//
//	qkv (batch·seqLen, 3C) → out (batch·seqLen, C)
//
// qkv is the output of the QKV linear layer, each row [q | k | v] for one
// position (rows of a sequence consecutive), head h owning columns
// [h·hd, (h+1)·hd) of each part, hd = C/heads. For each sequence b, head h
// and position t, out_t = Σ_{s≤t} softmax_s(q_t·k_s/√hd)·v_s with the row
// max subtracted; only s ≤ t is computed (no mask is materialised), so a
// right-padded batch needs no attention mask: a real token never sees the
// padding after it. The output's per-head columns match qkv's, ready for the
// output projection. The attention probabilities (batch, heads, seqLen,
// seqLen) are kept in the op for the backward, so one graph must not be run
// by two machines at once (see op_common.go); the output and the gradient
// live in op-owned buffers reused by the next run.
func CausalSelfAttention(qkv *G.Node, batch, seqLen, heads int) (*G.Node, error) {
	if err := checkFloat32Node("attention: qkv", qkv, 2); err != nil {
		return nil, err
	}
	rows, cols := qkv.Shape()[0], qkv.Shape()[1]
	if cols%3 != 0 {
		return nil, fmt.Errorf("attention: qkv has %d columns, not 3·C", cols)
	}
	sh := kernels.AttentionShape{Batch: batch, SeqLen: seqLen, Channels: cols / 3, Heads: heads}
	if err := sh.Validate(); err != nil {
		return nil, err
	}
	if batch < 1 || rows != batch*seqLen {
		return nil, fmt.Errorf("attention: qkv has %d rows, want batch·seqLen = %d·%d", rows, batch, seqLen)
	}
	out, err := G.ApplyOp(&attentionOp{sh: sh}, qkv)
	if err != nil {
		return nil, fmt.Errorf("attention: %w", err)
	}
	return out, nil
}

// attentionOp is the forward node; att is its saved state.
type attentionOp struct {
	customOp
	sh  kernels.AttentionShape
	out *tensor.Dense
	att []float32
}

func (op *attentionOp) qkvShape() tensor.Shape {
	return tensor.Shape{op.sh.Batch * op.sh.SeqLen, 3 * op.sh.Channels}
}
func (op *attentionOp) outShape() tensor.Shape {
	return tensor.Shape{op.sh.Batch * op.sh.SeqLen, op.sh.Channels}
}

func (op *attentionOp) Arity() int                                     { return 1 }
func (op *attentionOp) Type() hm.Type                                  { return hm.NewFnType(tensorType(2), tensorType(2)) }
func (op *attentionOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return op.outShape(), nil }

func (op *attentionOp) Do(vs ...G.Value) (G.Value, error) {
	if len(vs) != 1 {
		return nil, fmt.Errorf("attention: want 1 input, got %d", len(vs))
	}
	qkv, err := float32Value("attention: qkv", vs[0], op.qkvShape())
	if err != nil {
		return nil, err
	}
	out, err := ownedDense(&op.out, op.outShape())
	if err != nil {
		return nil, fmt.Errorf("attention: %w", err)
	}
	if len(op.att) != op.sh.AttLen() {
		op.att = make([]float32, op.sh.AttLen())
	}
	return out, kernels.AttentionForward(qkv, op.sh, out.Float32s(), op.att)
}

func (op *attentionOp) String() string {
	return fmt.Sprintf("CausalSelfAttention{B=%d, T=%d, C=%d, H=%d}", op.sh.Batch, op.sh.SeqLen, op.sh.Channels, op.sh.Heads)
}
func (op *attentionOp) WriteHash(h hash.Hash) { writeOpHash(h, op) }
func (op *attentionOp) Hashcode() uint32      { return opHashcode(op) }

func (op *attentionOp) DiffWRT(int) []bool { return []bool{true} }

// SymDiff gives the backward node AttentionGrad(qkv, out, dout); out is a
// child only so that it runs after the forward, whose att it reads.
func (op *attentionOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if len(inputs) != 1 {
		return nil, fmt.Errorf("attention backward: want 1 input, got %d", len(inputs))
	}
	d, err := G.ApplyOp(&attentionGradOp{fwd: op}, inputs[0], output, grad)
	if err != nil {
		return nil, fmt.Errorf("attention backward: %w", err)
	}
	return G.Nodes{d}, nil
}

// attentionGradOp computes dqkv from (qkv, out, dout) and the forward's att.
type attentionGradOp struct {
	customOp
	fwd *attentionOp
	out *tensor.Dense
}

func (op *attentionGradOp) Arity() int { return 3 }
func (op *attentionGradOp) Type() hm.Type {
	return hm.NewFnType(tensorType(2), tensorType(2), tensorType(2), tensorType(2))
}
func (op *attentionGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return op.fwd.qkvShape(), nil
}

func (op *attentionGradOp) Do(vs ...G.Value) (G.Value, error) {
	if len(vs) != 3 {
		return nil, fmt.Errorf("attention backward: want 3 inputs, got %d", len(vs))
	}
	f := op.fwd
	if len(f.att) != f.sh.AttLen() {
		return nil, fmt.Errorf("attention backward: the forward has not run")
	}
	qkv, err := float32Value("attention backward: qkv", vs[0], f.qkvShape())
	if err != nil {
		return nil, err
	}
	dout, err := float32Value("attention backward: dout", vs[2], f.outShape())
	if err != nil {
		return nil, err
	}
	d, err := ownedDense(&op.out, f.qkvShape())
	if err != nil {
		return nil, fmt.Errorf("attention backward: %w", err)
	}
	return d, kernels.AttentionBackward(qkv, f.sh, f.att, dout, d.Float32s())
}

func (op *attentionGradOp) String() string        { return "Grad" + op.fwd.String() }
func (op *attentionGradOp) WriteHash(h hash.Hash) { writeOpHash(h, op) }
func (op *attentionGradOp) Hashcode() uint32      { return opHashcode(op) }
func (op *attentionGradOp) DiffWRT(n int) []bool  { return make([]bool, n) }
func (op *attentionGradOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("attention: second derivatives are not implemented")
}

var (
	_ G.SDOp = (*attentionOp)(nil)
	_ G.SDOp = (*attentionGradOp)(nil)
)

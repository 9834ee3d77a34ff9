package engine

import (
	"fmt"
	"hash"
	"unsafe"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TokenLogProb returns the node logp (N) with logp[i] = logits[i, y[i]] −
// logsumexp(logits[i, :]) for logits (N,V) float32 and targets y (N) int32,
// computed by one fused, differentiable op (package kernels does the work).
// Its gradient w.r.t. logits is g[i]·(1[j=y[i]] − p[i,j]); targets get none.
//
// Targets outside [0, V) make the machine's run return an error. The op
// supports gorgonia's symbolic differentiation (G.Grad + TapeMachine), not the
// LispMachine's automatic one.
func TokenLogProb(logits, targets *G.Node) (*G.Node, error) {
	op, err := newTokenLogProbOp(logits, targets, false)
	if err != nil {
		return nil, err
	}
	return G.ApplyOp(op, logits, targets)
}

// TokenLogProbEntropy returns logp (N), as TokenLogProb, and the entropy
// H[i] = −Σ_j p[i,j]·log p[i,j] of each row (N), both differentiable, from a
// single fused op: the forward streams each row of logits once for both, and
// the backward makes one pass over the (N,V) gradient for both terms.
//
// The fused node's value is (2,N): row 0 is logp, row 1 is H; the two results
// are its rows as (N) nodes (Row: the values and gradients of gorgonia's
// slice [k:k+1] reshaped to (N), which the graph once used, without their
// new tensors on every run).
func TokenLogProbEntropy(logits, targets *G.Node) (logp, ent *G.Node, err error) {
	op, err := newTokenLogProbOp(logits, targets, true)
	if err != nil {
		return nil, nil, err
	}
	both, err := G.ApplyOp(op, logits, targets)
	if err != nil {
		return nil, nil, err
	}
	if logp, err = Row(both, 0); err != nil {
		return nil, nil, fmt.Errorf("token log-prob: logp: %w", err)
	}
	if ent, err = Row(both, 1); err != nil {
		return nil, nil, fmt.Errorf("token log-prob: entropy: %w", err)
	}
	return logp, ent, nil
}

// tokenLogProbState is what one forward node shares with its backward node.
//
// How the forward's logsumexp reaches the backward: through this op-owned
// state, not through an extra graph output. It is safe because gorgonia
// itself keeps every node's value in the node, so a graph is run by one
// TapeMachine at a time, sequentially; within a run the backward node takes
// the forward node as an input (tokenLogProbGradOp's third child), so the
// tape always runs the forward — which rewrites lse and ent from the current
// logits — before the backward reads them. A second run of the same graph
// therefore sees fresh values. Keeping lse and H off the graph also means no
// gorgonia op can ever overwrite them in place (reshape's UnsafeDo, the
// register allocator's reuse of dead values), which graph values are exposed
// to.
//
// The output tensors are owned too and returned by every run, so the op
// allocates only on its first run: a value read from these nodes is valid
// until the graph runs again (as with gorgonia's own preallocated values).
type tokenLogProbState struct {
	n, v    int
	withEnt bool

	lse []float32 // (N) log Σ_j exp(logits[i,j]) of the last forward
	ent []float32 // (N) entropy of the last forward; nil without withEnt

	out     *tensor.Dense // (N) logp, or (2,N) [logp; H] withEnt
	dlogits *tensor.Dense // (N,V) gradient w.r.t. logits

	// outShape and dShape are kept so that checking them allocates nothing.
	outShape, dShape tensor.Shape

	// seen is the address of the logits the last forward read, checked by the
	// backward as a cheap guard against reading stale state.
	seen *float32

	// dev and kern are the device the op was built for (SetDevice) and its
	// kernels.
	dev  Device
	kern logProbKernels
}

// tokenLogProbOp is the forward: (logits (N,V) f32, targets (N) i32) → out.
type tokenLogProbOp struct {
	customOp
	st *tokenLogProbState
}

func newTokenLogProbOp(logits, targets *G.Node, withEnt bool) (*tokenLogProbOp, error) {
	if logits == nil || targets == nil {
		return nil, fmt.Errorf("token log-prob: nil node")
	}
	ls, ts := logits.Shape(), targets.Shape()
	if len(ls) != 2 || ls[0] < 1 || ls[1] < 1 {
		return nil, fmt.Errorf("token log-prob: logits must be (N,V) with N, V ≥ 1, got %v", ls)
	}
	if logits.Dtype() != tensor.Float32 {
		return nil, fmt.Errorf("token log-prob: logits must be float32, got %v", logits.Dtype())
	}
	if len(ts) != 1 || ts[0] != ls[0] {
		return nil, fmt.Errorf("token log-prob: targets must be (%d), got %v", ls[0], ts)
	}
	if targets.Dtype() != tensor.Int32 {
		return nil, fmt.Errorf("token log-prob: targets must be int32, got %v", targets.Dtype())
	}
	st := &tokenLogProbState{n: ls[0], v: ls[1], withEnt: withEnt, outShape: tensor.Shape{ls[0]}, dShape: tensor.Shape{ls[0], ls[1]}}
	st.dev, st.kern = currentKernels()
	if withEnt {
		st.outShape = tensor.Shape{2, ls[0]}
	}
	return &tokenLogProbOp{st: st}, nil
}

func (op *tokenLogProbOp) Arity() int { return 2 }

func (op *tokenLogProbOp) Type() hm.Type {
	return hm.NewFnType(
		G.TensorType{Dims: 2, Of: tensor.Float32},
		G.TensorType{Dims: 1, Of: tensor.Int32},
		G.TensorType{Dims: op.st.outShape.Dims(), Of: tensor.Float32})
}

func (op *tokenLogProbOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	if len(in) != 2 {
		return nil, fmt.Errorf("token log-prob: want 2 inputs, got %d", len(in))
	}
	return op.st.outShape.Clone(), nil
}

func (op *tokenLogProbOp) Do(vals ...G.Value) (G.Value, error) {
	st := op.st
	if len(vals) != 2 {
		return nil, fmt.Errorf("token log-prob: want 2 inputs, got %d", len(vals))
	}
	logits, targets, err := st.inputs(vals)
	if err != nil {
		return nil, err
	}
	if st.lse == nil {
		st.lse = make([]float32, st.n)
		if st.withEnt {
			st.ent = make([]float32, st.n)
		}
	}
	out, err := ownedDense(&st.out, st.outShape)
	if err != nil {
		return nil, err
	}
	od := out.Float32s()
	if err := st.kern.forward(logits, st.n, st.v, targets, od[:st.n], st.lse, st.ent); err != nil {
		return nil, err
	}
	if st.withEnt {
		copy(od[st.n:], st.ent)
	}
	st.seen = unsafe.SliceData(logits)
	return out, nil
}

func (op *tokenLogProbOp) WriteHash(h hash.Hash) { writeOpHash(h, op) }

func (op *tokenLogProbOp) Hashcode() uint32 { return opHashcode(op) }

func (op *tokenLogProbOp) String() string {
	return fmt.Sprintf("TokenLogProb{ent=%v%s}", op.st.withEnt, op.st.devSuffix())
}

// devSuffix names a device other than the CPU in the ops' String (and so in
// their hash: ops on different devices are not merged).
func (st *tokenLogProbState) devSuffix() string {
	if st.dev == CPU {
		return ""
	}
	return ",dev=" + st.dev.String()
}

func (op *tokenLogProbOp) DiffWRT(inputs int) []bool { return []bool{true, false} }

// SymDiff returns the gradient node for logits (none for targets). The
// backward also reads the forward node (output) so that the tape orders it
// after the forward, whose lse it uses (see tokenLogProbState).
func (op *tokenLogProbOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if len(inputs) != 2 {
		return nil, fmt.Errorf("token log-prob: want 2 inputs, got %d", len(inputs))
	}
	d, err := G.ApplyOp(&tokenLogProbGradOp{st: op.st}, inputs[0], inputs[1], output, grad)
	if err != nil {
		return nil, fmt.Errorf("token log-prob: backward node: %w", err)
	}
	return G.Nodes{d, nil}, nil
}

var (
	_ G.Op   = (*tokenLogProbOp)(nil)
	_ G.SDOp = (*tokenLogProbOp)(nil)
)

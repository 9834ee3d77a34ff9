package optim

import (
	"fmt"
	"hash"
	"hash/fnv"
	"sync/atomic"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// SliceFunc is a scalar loss of a flat float64 vector with its gradient:
// every objective of this package, with its other inputs bound.
type SliceFunc func(x []float64) (loss float64, grad []float64, err error)

// SliceLoss adds to x's graph a scalar node whose forward is f(x) and whose
// backward is the upstream gradient times f's gradient. x may have any
// shape (its data is read row-major as a flat vector of n entries) and be
// float32 or float64; the loss has x's dtype and is computed in float64.
//
// This is how every objective below reaches the graph: one custom op per
// objective, so the graph and the slice function cannot disagree (the
// graph tests check that they do not) and no stock gorgonia op with a known
// wrong gradient is involved.
func SliceLoss(x *G.Node, name string, n int, f SliceFunc) (*G.Node, error) {
	if x.Shape().TotalSize() != n {
		return nil, fmt.Errorf("%s: node %s has %d entries (shape %v), want %d", name, x.Name(), x.Shape().TotalSize(), x.Shape(), n)
	}
	if dt := x.Dtype(); dt != tensor.Float32 && dt != tensor.Float64 {
		return nil, fmt.Errorf("%s: node %s has dtype %v, want float32 or float64", name, x.Name(), dt)
	}
	// A dry run on zeros surfaces bad options before any graph work.
	if _, _, err := f(make([]float64, n)); err != nil {
		return nil, err
	}
	op := &sliceLossOp{id: opIDs.Add(1), name: name, dims: x.Dims(), f: f}
	return G.ApplyOp(op, x)
}

// opIDs makes every op's hash unique: gorgonia merges nodes with equal
// hashes, and two losses over the same log-probs with different
// advantages must stay two nodes.
var opIDs atomic.Uint64

// The graph builders: each objective as a scalar node over a log-prob node
// (or a value / entropy node), built with SliceLoss. The other inputs are
// bound by reference: the graph reads the slices as they are at each run,
// so a trainer may refill them in place (same lengths) and rerun the same
// graph. Each builder also returns a
// pointer to the objective's result, which every forward run of the graph
// overwrites: read the metrics from it after running the machine. The
// PPO and value objectives reuse their work slices between runs
// (scratch.go): a result's gradient slice is valid until the next run.

// PPOClipNode is PPOClip over the log-prob node logp (N entries).
func PPOClipNode(logp *G.Node, oldLogp, adv []float64, b Packed, cfg PPOConfig) (*G.Node, *PolicyResult, error) {
	last, s := new(PolicyResult), new(scratch)
	n, err := SliceLoss(logp, "ppo_clip", len(oldLogp), func(x []float64) (float64, []float64, error) {
		r, err := ppoClip(s, x, oldLogp, adv, b, cfg)
		*last = r
		return r.Loss, r.DLogp, err
	})
	return n, last, err
}

// GSPONode is GSPO (token form) over the log-prob node logp.
func GSPONode(logp *G.Node, oldLogp, adv []float64, b Packed, cfg GSPOConfig) (*G.Node, *PolicyResult, error) {
	last := new(PolicyResult)
	n, err := SliceLoss(logp, "gspo", len(oldLogp), func(x []float64) (float64, []float64, error) {
		r, err := GSPO(x, oldLogp, adv, b, cfg)
		*last = r
		return r.Loss, r.DLogp, err
	})
	return n, last, err
}

// ValueLossNode is ValueLoss over the critic's value node (N entries).
func ValueLossNode(values *G.Node, oldValues, returns []float64, b Packed, cfg ValueConfig) (*G.Node, *ValueResult, error) {
	last, s := new(ValueResult), new(scratch)
	n, err := SliceLoss(values, "value_loss", len(oldValues), func(x []float64) (float64, []float64, error) {
		r, err := valueLoss(s, x, oldValues, returns, b, cfg)
		*last = r
		return r.Loss, r.DValue, err
	})
	return n, last, err
}

// EntropyBonusNode is EntropyBonus over the per-token entropy node.
func EntropyBonusNode(ent *G.Node, b Packed, coef float64, agg Agg) (*G.Node, *EntropyResult, error) {
	last := new(EntropyResult)
	n, err := SliceLoss(ent, "entropy_bonus", len(b.Mask), func(x []float64) (float64, []float64, error) {
		r, err := EntropyBonus(x, b, coef, agg)
		*last = r
		return r.Loss, r.DEnt, err
	})
	return n, last, err
}

// KLPenaltyNode is KLPenalty over the log-prob node logp.
func KLPenaltyNode(logp *G.Node, refLogp []float64, b Packed, cfg KLConfig) (*G.Node, *KLResult, error) {
	last := new(KLResult)
	n, err := SliceLoss(logp, "kl_penalty", len(refLogp), func(x []float64) (float64, []float64, error) {
		r, err := KLPenalty(x, refLogp, b, cfg)
		*last = r
		return r.Loss, r.DLogp, err
	})
	return n, last, err
}

// sliceLossOp is f(x) → scalar.
type sliceLossOp struct {
	id   uint64
	name string
	dims int
	f    SliceFunc
	x    []float64 // the input widened, kept between runs
}

func (op *sliceLossOp) Arity() int { return 1 }
func (op *sliceLossOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	return hm.NewFnType(G.TensorType{Dims: op.dims, Of: a}, a)
}
func (op *sliceLossOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.ScalarShape(), nil
}
func (op *sliceLossOp) Do(vs ...G.Value) (G.Value, error) {
	if len(vs) != 1 {
		return nil, fmt.Errorf("%s: want 1 input, got %d", op.name, len(vs))
	}
	x, err := flat64(op.x, vs[0])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.name, err)
	}
	op.x = x
	l, _, err := op.f(x)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.name, err)
	}
	if vs[0].Dtype() == tensor.Float32 {
		return G.NewF32(float32(l)), nil
	}
	return G.NewF64(l), nil
}
func (op *sliceLossOp) ReturnsPtr() bool     { return false }
func (op *sliceLossOp) CallsExtern() bool    { return false }
func (op *sliceLossOp) OverwritesInput() int { return -1 }
func (op *sliceLossOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "optim.%s#%d", op.name, op.id)
}
func (op *sliceLossOp) Hashcode() uint32 { return hashOf(op) }
func (op *sliceLossOp) String() string   { return op.name }

func (op *sliceLossOp) DiffWRT(int) []bool { return []bool{true} }
func (op *sliceLossOp) SymDiff(inputs G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	if len(inputs) != 1 {
		return nil, fmt.Errorf("%s: want 1 input, got %d", op.name, len(inputs))
	}
	d, err := G.ApplyOp(&sliceLossGradOp{fwd: op}, inputs[0], grad)
	if err != nil {
		return nil, fmt.Errorf("%s backward: %w", op.name, err)
	}
	return G.Nodes{d}, nil
}

// sliceLossGradOp is (x, g) → g·∇f(x), shaped like x. Its output is
// kept and overwritten by the next run, as the engine's ops keep theirs.
type sliceLossGradOp struct {
	fwd *sliceLossOp
	x   []float64
	out *tensor.Dense
}

func (op *sliceLossGradOp) Arity() int { return 2 }
func (op *sliceLossGradOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	t := G.TensorType{Dims: op.fwd.dims, Of: a}
	return hm.NewFnType(t, a, t)
}
func (op *sliceLossGradOp) InferShape(ds ...G.DimSizer) (tensor.Shape, error) {
	s, ok := ds[0].(tensor.Shape)
	if !ok {
		return nil, fmt.Errorf("%s backward: cannot infer shape from %v", op.fwd.name, ds[0])
	}
	return s.Clone(), nil
}
func (op *sliceLossGradOp) Do(vs ...G.Value) (G.Value, error) {
	if len(vs) != 2 {
		return nil, fmt.Errorf("%s backward: want 2 inputs, got %d", op.fwd.name, len(vs))
	}
	x, err := flat64(op.x, vs[0])
	if err != nil {
		return nil, fmt.Errorf("%s backward: %w", op.fwd.name, err)
	}
	op.x = x
	up, err := scalar64(vs[1])
	if err != nil {
		return nil, fmt.Errorf("%s backward: %w", op.fwd.name, err)
	}
	_, g, err := op.fwd.f(x)
	if err != nil {
		return nil, fmt.Errorf("%s backward: %w", op.fwd.name, err)
	}
	out := op.output(vs[0].Shape(), vs[0].Dtype())
	switch out.Dtype() { // the kept dense output's memory, without Data()'s reflection and boxing
	case tensor.Float32:
		y := out.Float32s()
		for i, v := range g {
			y[i] = float32(up * v)
		}
	case tensor.Float64:
		y := out.Float64s()
		for i, v := range g {
			y[i] = up * v
		}
	}
	return out, nil
}

// output is the kept output tensor when it still has the shape's size and
// the dtype (restored to the shape if a later op reshaped it in place), else
// a new one, kept for the next run.
func (op *sliceLossGradOp) output(shape tensor.Shape, dt tensor.Dtype) *tensor.Dense {
	if o := op.out; o != nil && o.Dtype() == dt && o.Len() == shape.TotalSize() && !o.IsView() {
		if o.Shape().Eq(shape) || o.Reshape(shape...) == nil {
			return o
		}
	}
	op.out = tensor.New(tensor.WithShape(shape.Clone()...), tensor.Of(dt))
	return op.out
}
func (op *sliceLossGradOp) ReturnsPtr() bool     { return false }
func (op *sliceLossGradOp) CallsExtern() bool    { return false }
func (op *sliceLossGradOp) OverwritesInput() int { return -1 }
func (op *sliceLossGradOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "optim.%s.grad#%d", op.fwd.name, op.fwd.id)
}
func (op *sliceLossGradOp) Hashcode() uint32 { return hashOf(op) }
func (op *sliceLossGradOp) String() string   { return op.fwd.name + "'" }

func hashOf(op G.Op) uint32 {
	h := fnv.New32a()
	op.WriteHash(h)
	return h.Sum32()
}

// flat64 copies a float32 or float64 tensor's data into a float64 slice,
// buf's memory when it is large enough.
func flat64(buf []float64, v G.Value) ([]float64, error) {
	if d, ok := v.(*tensor.Dense); ok && !d.IsScalar() && !d.IsView() {
		// What Data() holds, read without its reflection and boxing.
		switch d.Dtype() {
		case tensor.Float32:
			return f64Into(buf, d.Float32s()), nil
		case tensor.Float64:
			return append(buf[:0], d.Float64s()...), nil
		}
	}
	switch d := v.Data().(type) {
	case []float32:
		return f64Into(buf, d), nil
	case []float64:
		return append(buf[:0], d...), nil
	}
	return nil, fmt.Errorf("want a float32 or float64 tensor, got %T", v.Data())
}

// scalar64 reads a scalar (or one-element tensor) upstream gradient.
func scalar64(v G.Value) (float64, error) {
	switch d := v.Data().(type) {
	case float32:
		return float64(d), nil
	case float64:
		return d, nil
	case []float32:
		if len(d) == 1 {
			return float64(d[0]), nil
		}
	case []float64:
		if len(d) == 1 {
			return d[0], nil
		}
	}
	return 0, fmt.Errorf("upstream gradient is not a scalar: %v", v.Shape())
}

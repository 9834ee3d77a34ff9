package engine

import (
	"fmt"
	"hash"
	"hash/fnv"
	"unsafe"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// How the custom ops (LayerNorm, GELU, CausalSelfAttention) live inside
// gorgonia, and why they are built this way.
//
// Forward state. gorgonia ops return one value, but the backward of
// LayerNorm needs the forward's mean and rstd and the backward of attention
// its probabilities. Each forward op therefore owns those buffers, and each
// backward op holds a pointer to its forward op and reads them. This is
// sound because a graph is built once and run by one TapeMachine at a time,
// in a fixed topological order in which every forward node runs before the
// backward nodes that read its state; two machines running the same graph
// concurrently would race (documented on each constructor). To make that
// order a fact of the graph rather than luck, each stateful backward node
// takes the forward's output node as an input (its value is not used): a
// loss like Σ w ⊙ op(x) has gradient w, which does not depend on op(x), so
// without that edge the sort would be free to put the backward first.
//
// Buffers. gorgonia's TapeMachine.Reset forgets every register, so nothing
// it allocates survives to the next run. Each op instead allocates its
// output (and state) on its first run and reuses it on every later run of
// the same shape: a node's Value is valid until the next run of the
// machine, which is how the training loop reads values anyway. This is safe
// inside a run because gorgonia's register allocator lets a later op write
// into a value in place only after the value's last reader (the backward
// ops included) has run, and our ops never read their own outputs.
//
// Hashes. gorgonia merges nodes whose op hash and children are equal. Two
// equal forward calls on the same inputs would compute the same values, so
// merging them is harmless (the surviving node's op, and its state, serve
// both); each op's hash includes every parameter that changes its result.

// customOp holds the methods every custom op answers the same way: Do
// allocates nothing per call (it returns an op-owned buffer, so the value is
// not a pointer into an input), calls no extern code and overwrites no input.
type customOp struct{}

func (customOp) ReturnsPtr() bool     { return false }
func (customOp) CallsExtern() bool    { return false }
func (customOp) OverwritesInput() int { return -1 }

// unaryDiffWRT is DiffWRT for an op of one input that has a backward twin:
// the forward (backward false) is differentiable in its input, the
// backward in nothing (second derivatives are not implemented).
func unaryDiffWRT(n int, backward bool) []bool {
	d := make([]bool, n)
	if !backward && n == 1 {
		d[0] = true
	}
	return d
}

// writeOpHash and opHashcode hash an op by its String, which names every
// parameter that changes its result.
func writeOpHash(h hash.Hash, op fmt.Stringer) { fmt.Fprint(h, op.String()) }

func opHashcode(op fmt.Stringer) uint32 {
	h := fnv.New32a()
	writeOpHash(h, op)
	return h.Sum32()
}

// tensorType is a gorgonia tensor type of the given rank whose element type
// is the type variable a (the ops check at build time that it is float32).
func tensorType(dims int) hm.Type { return G.TensorType{Dims: dims, Of: hm.TypeVariable('a')} }

// checkFloat32Node reports a node that is not a float32 tensor of the given
// rank (rank < 0: any rank ≥ 1).
func checkFloat32Node(what string, n *G.Node, rank int) error {
	if n == nil {
		return fmt.Errorf("%s is nil", what)
	}
	if n.Dtype() != tensor.Float32 {
		return fmt.Errorf("%s must be float32, got %v", what, n.Dtype())
	}
	if d := n.Shape().Dims(); (rank >= 0 && d != rank) || d < 1 {
		return fmt.Errorf("%s must have rank %d, got shape %v", what, rank, n.Shape())
	}
	return nil
}

// float32Value returns the row-major data of a value that must be a float32
// tensor of exactly the given shape. A view that is not contiguous (a
// transpose, a strided slice) is copied into row-major order first.
func float32Value(what string, v G.Value, shape tensor.Shape) ([]float32, error) {
	if f, ok := v.(*G.F32); ok && shape.TotalSize() == 1 {
		return unsafe.Slice((*float32)(f), 1), nil // gorgonia's scalar value
	}
	d, ok := v.(*tensor.Dense)
	if !ok {
		return nil, fmt.Errorf("%s: want a *tensor.Dense, got %T", what, v)
	}
	if d.Dtype() != tensor.Float32 {
		return nil, fmt.Errorf("%s: want float32, got %v", what, d.Dtype())
	}
	if !d.Shape().Eq(shape) {
		return nil, fmt.Errorf("%s: want shape %v, got %v", what, shape.Clone(), d.Shape())
	}
	if d.RequiresIterator() {
		d = d.Materialize().(*tensor.Dense)
	}
	data := d.Float32s()
	if len(data) < shape.TotalSize() {
		return nil, fmt.Errorf("%s: holds %d values, shape %v needs %d", what, len(data), shape.Clone(), shape.TotalSize())
	}
	return data[:shape.TotalSize()], nil
}

// ownedDense returns the op's output buffer *buf, allocating it on first
// use: reused across runs. A later in-place op of the last run may have
// reshaped it (gorgonia's Reshape does so when it may overwrite its input),
// so the shape is restored rather than the memory reallocated.
func ownedDense(buf **tensor.Dense, shape tensor.Shape) (*tensor.Dense, error) {
	if b := *buf; b != nil && len(b.Float32s()) == shape.TotalSize() && !b.IsView() {
		if !b.Shape().Eq(shape) {
			if err := b.Reshape(shape.Clone()...); err != nil { // a copy: shape stays on the caller's stack
				return nil, fmt.Errorf("restore output shape %v: %w", shape.Clone(), err)
			}
		}
		return b, nil
	}
	*buf = tensor.New(tensor.WithShape(shape.Clone()...), tensor.Of(tensor.Float32))
	return *buf, nil
}

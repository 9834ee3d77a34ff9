package engine

import (
	"fmt"
	"hash"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Row is row k of a float32 (R,N) node as an (N) node: the values of
// gorgonia's G.Slice(x, G.S(k, k+1)) reshaped to (N), as one op that copies
// the row into a buffer it keeps, where the slice copies it into a new
// tensor and the reshape makes a new header on every run. Its gradient is
// what gorgonia's slice gives: an (R,N) tensor of zeros into whose row k
// the upstream gradient is added (so a −0 arrives as +0, as 0 + (−0) is).
// TestRowMatchesSliceAndReshape holds both bitwise to the stock ops.
func Row(x *G.Node, k int) (*G.Node, error) {
	if err := checkFloat32Node("row: x", x, 2); err != nil {
		return nil, err
	}
	s := x.Shape()
	if k < 0 || k >= s[0] {
		return nil, fmt.Errorf("row: row %d of a (%d,%d) node", k, s[0], s[1])
	}
	y, err := G.ApplyOp(&rowOp{rows: s[0], n: s[1], k: k}, x)
	if err != nil {
		return nil, fmt.Errorf("row: %w", err)
	}
	return y, nil
}

// rowOp is the forward (grad false: (R,N) → (N)) or its backward (grad
// true: the upstream (N) gradient → the (R,N) gradient).
type rowOp struct {
	customOp
	rows, n, k int
	grad       bool
	out        *tensor.Dense
}

func (op *rowOp) Arity() int { return 1 }

func (op *rowOp) shapes() (in, out tensor.Shape) {
	in, out = tensor.Shape{op.rows, op.n}, tensor.Shape{op.n}
	if op.grad {
		in, out = out, in
	}
	return in, out
}

func (op *rowOp) Type() hm.Type {
	in, out := op.shapes()
	return hm.NewFnType(tensorType(in.Dims()), tensorType(out.Dims()))
}

func (op *rowOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	_, out := op.shapes()
	return out, nil
}

func (op *rowOp) Do(vs ...G.Value) (G.Value, error) {
	if len(vs) != 1 {
		return nil, fmt.Errorf("%v: want 1 input, got %d", op, len(vs))
	}
	in, outShape := op.shapes()
	x, err := float32Value("row: input", vs[0], in)
	if err != nil {
		return nil, err
	}
	out, err := ownedDense(&op.out, outShape)
	if err != nil {
		return nil, fmt.Errorf("%v: %w", op, err)
	}
	y := out.Float32s()
	if !op.grad {
		copy(y, x[op.k*op.n:(op.k+1)*op.n])
		return out, nil
	}
	// Every run: a later op may have written into this buffer in place
	// (autodiff sums gradients into one of its terms).
	clear(y)
	row := y[op.k*op.n : (op.k+1)*op.n]
	for j, g := range x {
		row[j] += g
	}
	return out, nil
}

func (op *rowOp) String() string {
	if op.grad {
		return fmt.Sprintf("RowGrad(%d of %d×%d)", op.k, op.rows, op.n)
	}
	return fmt.Sprintf("Row(%d of %d×%d)", op.k, op.rows, op.n)
}
func (op *rowOp) WriteHash(h hash.Hash) { writeOpHash(h, op) }
func (op *rowOp) Hashcode() uint32      { return opHashcode(op) }

func (op *rowOp) DiffWRT(n int) []bool { return unaryDiffWRT(n, op.grad) }

// SymDiff gives the backward node RowGrad(dy).
func (op *rowOp) SymDiff(inputs G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	if op.grad {
		return nil, fmt.Errorf("row: second derivatives are not implemented")
	}
	if len(inputs) != 1 {
		return nil, fmt.Errorf("row backward: want 1 input, got %d", len(inputs))
	}
	dx, err := G.ApplyOp(&rowOp{rows: op.rows, n: op.n, k: op.k, grad: true}, grad)
	if err != nil {
		return nil, fmt.Errorf("row backward: %w", err)
	}
	return G.Nodes{dx}, nil
}

var _ G.SDOp = (*rowOp)(nil)

package engine

import (
	"fmt"
	"hash"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"arew/kernels"
)

// MatMul is c = a·b for float32 matrices, one differentiable node:
//
//	a (M,K), b (K,N) → c (M,N);   da = dc·bᵀ (M,K),   db = aᵀ·dc (K,N)
//
// Each of the three products is one kernels.Sgemm call with exactly the
// arguments gorgonia's Mul hands FastBLAS for the same product (transpose
// flags, sizes, row-major strides, α = 1, β = 0), so values and gradients
// are bitwise those of G.Mul (TestMatMulMatchesGorgoniaBitwise). Why not
// G.Mul: gorgonia's matrix product goes through tensor's generic MatMul,
// which builds transposed views, checks and reshapes its output and reads
// data by reflection, about a dozen allocations per product on every run
// (a quarter of what a PPO update of the small preset still allocated),
// and needs the Machine's register juggling to keep its output. Here the
// output lives in an op-owned buffer reused by the next run (op_common.go).
// Proof of the gradient: TestMatMulGradCheck.
func MatMul(a, b *G.Node) (*G.Node, error) {
	if a == nil || b == nil || a.Dims() != 2 || b.Dims() != 2 || a.Shape()[1] != b.Shape()[0] {
		return nil, fmt.Errorf("matmul: want a (M,K) and b (K,N), got %v and %v", shapeOf(a), shapeOf(b))
	}
	if a.Dtype() != tensor.Float32 || b.Dtype() != tensor.Float32 {
		return nil, fmt.Errorf("matmul: want float32, got %v and %v", a.Dtype(), b.Dtype())
	}
	return G.ApplyOp(newMatMulOp(a.Shape()[0], a.Shape()[1], b.Shape()[1], matMulForward), a, b)
}

type matMulKind int

const (
	matMulForward matMulKind = iota // (a, b) → a·b
	matMulGradA                     // (dc, b) → dc·bᵀ
	matMulGradB                     // (a, dc) → aᵀ·dc
)

type matMulOp struct {
	customOp
	m, k, n      int // of the forward product a (m,k) · b (k,n)
	kind         matMulKind
	xs, ys, outs tensor.Shape // the two inputs' shapes and the output's
	out          *tensor.Dense
}

func newMatMulOp(m, k, n int, kind matMulKind) *matMulOp {
	op := &matMulOp{m: m, k: k, n: n, kind: kind}
	a, b, c := tensor.Shape{m, k}, tensor.Shape{k, n}, tensor.Shape{m, n}
	switch kind {
	case matMulForward:
		op.xs, op.ys, op.outs = a, b, c
	case matMulGradA:
		op.xs, op.ys, op.outs = c, b, a
	case matMulGradB:
		op.xs, op.ys, op.outs = a, c, b
	}
	return op
}

func (op *matMulOp) Arity() int { return 2 }

func (op *matMulOp) Type() hm.Type {
	t := tensorType(2)
	return hm.NewFnType(t, t, t)
}

func (op *matMulOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return op.outs.Clone(), nil }

func (op *matMulOp) Do(vs ...G.Value) (G.Value, error) {
	if len(vs) != 2 {
		return nil, fmt.Errorf("%v: want 2 inputs, got %d", op, len(vs))
	}
	x, err := float32Value("matmul: first input", vs[0], op.xs)
	if err != nil {
		return nil, err
	}
	y, err := float32Value("matmul: second input", vs[1], op.ys)
	if err != nil {
		return nil, err
	}
	out, err := ownedDense(&op.out, op.outs)
	if err != nil {
		return nil, fmt.Errorf("%v: %w", op, err)
	}
	c := out.Float32s()
	m, k, n := op.m, op.k, op.n
	switch op.kind {
	case matMulForward: // c (m,n) = a (m,k) · b (k,n)
		err = kernels.Sgemm(false, false, m, n, k, 1, x, k, y, n, 0, c, n)
	case matMulGradA: // da (m,k) = dc (m,n) · bᵀ, b stored (k,n)
		err = kernels.Sgemm(false, true, m, k, n, 1, x, n, y, n, 0, c, k)
	case matMulGradB: // db (k,n) = aᵀ · dc (m,n), a stored (m,k)
		err = kernels.Sgemm(true, false, k, n, m, 1, x, k, y, n, 0, c, n)
	}
	if err != nil {
		return nil, fmt.Errorf("%v: %w", op, err)
	}
	return out, nil
}

func (op *matMulOp) String() string {
	return fmt.Sprintf("%s{M=%d, K=%d, N=%d}", [3]string{"MatMul", "MatMulGradA", "MatMulGradB"}[op.kind], op.m, op.k, op.n)
}
func (op *matMulOp) WriteHash(h hash.Hash) { writeOpHash(h, op) }
func (op *matMulOp) Hashcode() uint32      { return opHashcode(op) }

func (op *matMulOp) DiffWRT(n int) []bool {
	d := make([]bool, n)
	if op.kind == matMulForward {
		for i := range d {
			d[i] = true
		}
	}
	return d
}

func (op *matMulOp) SymDiff(inputs G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	if op.kind != matMulForward || len(inputs) != 2 {
		return nil, fmt.Errorf("%v: no derivative", op)
	}
	da, err := G.ApplyOp(newMatMulOp(op.m, op.k, op.n, matMulGradA), grad, inputs[1])
	if err != nil {
		return nil, err
	}
	db, err := G.ApplyOp(newMatMulOp(op.m, op.k, op.n, matMulGradB), inputs[0], grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{da, db}, nil
}

var _ G.SDOp = (*matMulOp)(nil)

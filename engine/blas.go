package engine

import (
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
	G "gorgonia.org/gorgonia"

	"arew/kernels"
)

// FastBLAS is the BLAS that gorgonia uses after UseFastBLAS: gonum's native
// (cgo-free) implementation, gorgonia's default (gonum v0.11), with the
// float32 matrix product replaced by kernels.Sgemm (AVX2/FMA or AVX-512 assembly where
// the CPU has it, packed, blocked and parallel; see kernels/sgemm.go). Every
// other routine, float64 and complex included, is gonum's.
//
// Where gorgonia calls it. tensor's StdEng.MatMul (gorgonia's Mul of two
// matrices, forward and backward) calls Sgemm; the backward passes the
// transposed views of the operands as blas.Trans flags, which FastBLAS maps
// to Sgemm's transA/transB. tensor's MatVecMul (Mul of a matrix and a
// vector) calls Sgemv, always with unit increments; FastBLAS runs those as an
// Sgemm with n = 1, which kernels does as AVX2 dot products (y = A·x) or axpy
// updates (y = Aᵀ·x), and leaves other increments to gonum.
//
// Errors. gonum's BLAS panics on bad arguments by contract (the blas package
// says so), and gorgonia, which checks shapes when it builds the graph, only
// calls it with valid ones. FastBLAS keeps that contract: an argument that
// kernels.Sgemm rejects (negative size, stride too small, buffer too short)
// or a transpose flag other than NoTrans, Trans and ConjTrans (the same as
// Trans for real data) panics with the kernel's error. That is a programmer
// bug, never bad user input.
type FastBLAS struct {
	gonum.Implementation
}

// Sgemm computes C = α·op(A)·op(B) + β·C, row-major, with gonum's signature
// and kernels.Sgemm's arithmetic (float32 sums, fused multiply-adds).
func (FastBLAS) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if err := kernels.Sgemm(isTrans(tA), isTrans(tB), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc); err != nil {
		panic(fmt.Sprintf("engine: FastBLAS.Sgemm: %v", err))
	}
}

// Sgemv computes y = α·op(A)·x + β·y for an m×n row-major A. Unit
// increments go to kernels.Sgemm as an (·,1) product; others to gonum.
func (f FastBLAS) Sgemv(tA blas.Transpose, m, n int, alpha float32, a []float32, lda int, x []float32, incX int, beta float32, y []float32, incY int) {
	if incX != 1 || incY != 1 {
		f.Implementation.Sgemv(tA, m, n, alpha, a, lda, x, incX, beta, y, incY)
		return
	}
	// y (rows,1) = op(A) (rows,cols) · x, x stored as a (1,cols) row.
	rows, cols := m, n
	if isTrans(tA) {
		rows, cols = n, m
	}
	if err := kernels.Sgemm(isTrans(tA), true, rows, 1, cols, alpha, a, lda, x, max(1, cols), beta, y, 1); err != nil {
		panic(fmt.Sprintf("engine: FastBLAS.Sgemv: %v", err))
	}
}

// isTrans maps a BLAS transpose flag to a bool, panicking on an invalid one
// as gonum does.
func isTrans(t blas.Transpose) bool {
	switch t {
	case blas.NoTrans:
		return false
	case blas.Trans, blas.ConjTrans:
		return true
	}
	panic(fmt.Sprintf("engine: FastBLAS: bad transpose flag %d", t))
}

// UseFastBLAS makes gorgonia (and its tensor package) use FastBLAS for every
// product from now on. gorgonia keeps the BLAS in a global that it reads at
// each product, so call this before running machines, not while one runs. It
// is idempotent, so every entry point (trainer, benchmarks, tests) may simply
// call it; it is deliberately not a sync.Once, so that it still works after
// a test has restored gonum's. It writes the global only when another BLAS
// is in it: runs that build graphs while others run (a sweep's cells at
// once) then only read it.
func UseFastBLAS() {
	if _, ok := G.WhichBLAS().(FastBLAS); !ok {
		G.Use(FastBLAS{})
	}
}

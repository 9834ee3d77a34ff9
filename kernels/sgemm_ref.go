package kernels

import (
	"fmt"
	"strings"
)

// SgemmRef is the reference single-precision matrix product, the plain triple
// loop that Sgemm is tested against. Row-major BLAS semantics:
//
//	C = α·op(A)·op(B) + β·C,   op(X) = X or Xᵀ
//
// op(A) is (m,k), op(B) is (k,n), C is (m,n). A is stored (m,k) with row
// stride lda when transA is false, (k,m) when it is true; B likewise (k,n) or
// (n,k) with ldb; C is (m,n) with ldc. Each dot product is accumulated in
// float64 and rounded once, so the reference is more accurate than any float32
// BLAS and the tests can bound the fast path's error by k·ε·Σ|a||b|.
//
// As in BLAS, β = 0 means C is only written (NaN or Inf there is overwritten),
// and α = 0 or k = 0 means A and B are not read.
func SgemmRef(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) error {
	if err := checkSgemm(transA, transB, m, n, k, a, lda, b, ldb, c, ldc); err != nil {
		return err
	}
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var sum float64
			if alpha != 0 {
				for p := 0; p < k; p++ {
					ai, bj := i*lda+p, p*ldb+j // op(A)[i][p], op(B)[p][j]
					if transA {
						ai = p*lda + i
					}
					if transB {
						bj = j*ldb + p
					}
					sum += float64(a[ai]) * float64(b[bj])
				}
			}
			v := float64(alpha) * sum
			if beta != 0 {
				v += float64(beta) * float64(c[i*ldc+j])
			}
			c[i*ldc+j] = float32(v)
		}
	}
	return nil
}

// checkSgemm validates the arguments of Sgemm and SgemmRef before any work:
// sizes non-negative, row strides at least the row width (and at least 1, as
// in CBLAS), and each buffer long enough for its last row.
func checkSgemm(transA, transB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) error {
	if m < 0 || n < 0 || k < 0 {
		return fmt.Errorf("sgemm: negative size m=%d n=%d k=%d", m, n, k)
	}
	aRows, aCols := m, k
	if transA {
		aRows, aCols = k, m
	}
	bRows, bCols := k, n
	if transB {
		bRows, bCols = n, k
	}
	if err := checkMatrix("A", a, aRows, aCols, lda); err != nil {
		return err
	}
	if err := checkMatrix("B", b, bRows, bCols, ldb); err != nil {
		return err
	}
	return checkMatrix("C", c, m, n, ldc)
}

// checkMatrix checks one row-major (rows,cols) operand with row stride ld.
func checkMatrix(name string, x []float32, rows, cols, ld int) error {
	if ld < max(1, cols) {
		return fmt.Errorf("sgemm: ld%s=%d is less than max(1, %d columns)", strings.ToLower(name), ld, cols)
	}
	if rows == 0 || cols == 0 {
		return nil
	}
	// Compare in a form that cannot overflow for any valid-looking input.
	if len(x) < cols || rows-1 > (len(x)-cols)/ld {
		return fmt.Errorf("sgemm: %s has %d elements, (%d,%d) with stride %d needs %d", name, len(x), rows, cols, ld, (rows-1)*ld+cols)
	}
	return nil
}

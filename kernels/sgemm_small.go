package kernels

// Matrix-vector shapes. When m = 1 or n = 1 the product is a matrix times a
// vector: every element of the matrix is used once, so there is nothing for
// packing and register tiles to reuse, and a 6×16 tile would be 1/6 or 1/16
// full. These shapes (a rollout of one sequence, a value head of width 1,
// gorgonia's Sgemv) instead run as dot products or as axpy updates over the
// contiguous rows of the matrix, on one goroutine: one pass over memory.
//
//	m = 1: c (1,n) = α·a (1,k)·op(B) (k,n) + β·c
//	n = 1: c (m,1) = α·op(A) (m,k)·b (k,1) + β·c

// sgemmVector computes the product for m = 1 or n = 1 (k ≥ 1, α ≠ 0) with
// the dot and axpy primitives of kern.
func sgemmVector(g *sgemmArgs, kern *sgemmKernelSet) {
	if g.m == 1 {
		// The vector is row 0 of op(A): a[p] (stored (1,k)) or a[p·lda]
		// (stored (k,1)); the matrix is op(B).
		sgemmMatVec(g, kern, g.a, g.lda, g.transA, g.b, g.ldb, !g.transB, g.n, 1)
		return
	}
	// n = 1: the vector is column 0 of op(B): b[p·ldb] (stored (k,1)) or b[p]
	// (stored (1,k)); the matrix is op(A) and C is the column c[i·ldc].
	sgemmMatVec(g, kern, g.b, g.ldb, !g.transB, g.a, g.lda, g.transA, g.m, g.ldc)
}

// sgemmMatVec computes out[j·incOut] = α·Σ_p v[p]·M[p][j] + β·out[j·incOut]
// for j < cols, where v has k elements at stride vStride (vStrided) or 1,
// and M (k,cols) is stored either row-major with stride ld (rowMajor: each
// M[p] is a contiguous row, so axpy) or transposed, (cols,k) with stride ld
// (each column of M is contiguous, so dot products).
func sgemmMatVec(g *sgemmArgs, kern *sgemmKernelSet, v []float32, vld int, vStrided bool, mat []float32, ld int, rowMajor bool, cols, incOut int) {
	k := g.k
	vec := v[:k]
	if vStrided && vld != 1 && k > 1 {
		buf := sgemmPoolA.get(k)
		defer sgemmPoolA.put(buf)
		vec = *buf
		for p := range vec {
			vec[p] = v[p*vld]
		}
	}
	out := g.c
	if !rowMajor {
		for j := 0; j < cols; j++ {
			d := g.alpha * kern.dot(vec, mat[j*ld:j*ld+k])
			if g.beta != 0 {
				d += g.beta * out[j*incOut]
			}
			out[j*incOut] = d
		}
		return
	}
	// Row-major: accumulate Σ_p v[p]·M[p] in a contiguous row, then merge.
	acc := sgemmPoolA.get(cols)
	defer sgemmPoolA.put(acc)
	row := *acc
	clear(row)
	for p, vp := range vec {
		kern.axpy(vp, mat[p*ld:p*ld+cols], row) // no skip of vp = 0: 0·Inf must stay NaN
	}
	for j, s := range row {
		d := g.alpha * s
		if g.beta != 0 {
			d += g.beta * out[j*incOut]
		}
		out[j*incOut] = d
	}
}

// sdotGo is Σ x[i]·y[i] over len(x) elements (y at least as long), with
// four float32 accumulators so that the additions overlap.
func sdotGo(x, y []float32) float32 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(x); i += 4 {
		xv, yv := x[i:i+4:i+4], y[i:i+4:i+4]
		s0 += xv[0] * yv[0]
		s1 += xv[1] * yv[1]
		s2 += xv[2] * yv[2]
		s3 += xv[3] * yv[3]
	}
	for ; i < len(x); i++ {
		s0 += x[i] * y[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// saxpyGo is y[i] += alpha·x[i] over len(x) elements (y at least as long).
func saxpyGo(alpha float32, x, y []float32) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += alpha * v
	}
}

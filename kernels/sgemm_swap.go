package kernels

// A weight gradient Xᵀ·dY has few rows (the layer's input width, m = 64
// in the small preset) and a long k (every token), so the packed B panels
// (dY, k×n) are each used by only m rows, and packing them is ~10% of the
// product. For Aᵀ·B with n ≥ 2m, Sgemm instead computes the transposed
// product Cᵀ = Bᵀ·A into scratch, where the packed operand is A (k×m, the
// narrower one), and writes C back transposed.
//
// The bits are those of the direct product: each element is the same
// chain of fused multiply-adds over p (a'·b' = b·a exactly), split into
// the same K panels (k is the same), and with β ≠ 0 the scratch starts as
// Cᵀ, so each panel adds onto the same partial sums
// (TestSgemmSwappedMatchesDirectBitwise). Only the store α·acc + β·C can
// differ: an element may fall in an edge tile (Go) in one product and a
// full one (assembly) in the other, and where the Go compiler fuses a
// multiply-add (arm64) the two round α·acc + β·C differently. With α = 1
// and β ∈ {0, 1}, the calls the engine makes, both products in that sum
// are exact, so every route rounds it once; other scalars take the direct
// product.

// sgemmSwapPays reports whether g (already validated, blocked) takes the
// transposed route: A transposed, B not, more than one K panel, n ≥ 2m,
// α = 1 and β = 0 or 1.
func sgemmSwapPays(g *sgemmArgs) bool {
	return g.transA && !g.transB && g.k > sgemmKC && g.n >= 2*g.m &&
		g.alpha == 1 && (g.beta == 0 || g.beta == 1)
}

// sgemmSwapped computes g as Cᵀ = α·Bᵀ·A + β·Cᵀ in pooled scratch.
func sgemmSwapped(g sgemmArgs, kern *sgemmKernelSet, workers int) {
	buf := sgemmPoolT.get(g.m * g.n)
	t := *buf
	if g.beta != 0 {
		transposeInto(t, g.m, g.c, g.ldc, g.m, g.n)
	}
	s := sgemmArgs{transA: true, m: g.n, n: g.m, k: g.k, alpha: g.alpha, beta: g.beta,
		a: g.b, lda: g.ldb, b: g.a, ldb: g.lda, c: t, ldc: g.m}
	sgemmBlocked(s, kern, workers)
	transposeInto(g.c, g.ldc, t, g.m, g.n, g.m)
	sgemmPoolT.put(buf)
}

// sgemmPoolT holds sgemmSwapped's scratch.
var sgemmPoolT sgemmPool

// transposeInto sets dst[j·ldd + i] = src[i·lds + j] for i < rows, j <
// cols: with AVX2, 8×8 blocks at a time (transpose8), the edges in Go; the
// values are copied either way.
func transposeInto(dst []float32, ldd int, src []float32, lds, rows, cols int) {
	i0 := 0
	if useAVX2 {
		for ; i0+8 <= rows; i0 += 8 {
			j := 0
			for ; j+8 <= cols; j += 8 {
				transpose8(dst[j*ldd+i0:], src[i0*lds+j:], ldd, lds)
			}
			for i := i0; i < i0+8; i++ {
				for jj := j; jj < cols; jj++ {
					dst[jj*ldd+i] = src[i*lds+jj]
				}
			}
		}
	}
	for i := i0; i < rows; i++ {
		for j, v := range src[i*lds : i*lds+cols] {
			dst[j*ldd+i] = v
		}
	}
}

package kernels

// sgemmTileGo is the portable micro-kernel: the same contract as the assembly
// one (see sgemmTileFunc) in plain Go, used off amd64, without AVX2, and by
// the tests that force the fallback. Go keeps float32 scalars in the 16 XMM
// registers, so the 6×16 tile is done as twelve 2×4 sub-tiles, each with 8
// accumulators plus 2 A and 4 B values in registers for its whole k loop.
//
//	a holds the A sliver, element (r,p) at a[r·rs + p·ks];
//	b is the packed B sliver (kc,16);
//	c the top-left element of a full (6,16) tile with row stride ldc.
func sgemmTileGo(kc int, a []float32, rs, ks int, b, c []float32, ldc int, alpha, beta float32) {
	_ = a[(sgemmMR-1)*rs+(kc-1)*ks]
	b = b[:kc*sgemmNR]
	_ = c[(sgemmMR-1)*ldc+sgemmNR-1]
	for i := 0; i < sgemmMR; i += 2 {
		for j := 0; j < sgemmNR; j += 4 {
			var c00, c01, c02, c03, c10, c11, c12, c13 float32
			ai, bj := i*rs, j
			for p := 0; p < kc; p++ {
				a0, a1 := a[ai], a[ai+rs]
				bv := b[bj : bj+4 : bj+4]
				b0, b1, b2, b3 := bv[0], bv[1], bv[2], bv[3]
				c00 += a0 * b0
				c01 += a0 * b1
				c02 += a0 * b2
				c03 += a0 * b3
				c10 += a1 * b0
				c11 += a1 * b1
				c12 += a1 * b2
				c13 += a1 * b3
				ai += ks
				bj += sgemmNR
			}
			sgemmStore4(c[i*ldc+j:], c00, c01, c02, c03, alpha, beta)
			sgemmStore4(c[(i+1)*ldc+j:], c10, c11, c12, c13, alpha, beta)
		}
	}
}

// sgemmStore4 writes α·(v0..v3) + β·c[0:4]; β = 0 writes without reading.
func sgemmStore4(c []float32, v0, v1, v2, v3, alpha, beta float32) {
	c = c[:4:4]
	if beta == 0 {
		c[0], c[1], c[2], c[3] = alpha*v0, alpha*v1, alpha*v2, alpha*v3
		return
	}
	c[0] = alpha*v0 + beta*c[0]
	c[1] = alpha*v1 + beta*c[1]
	c[2] = alpha*v2 + beta*c[2]
	c[3] = alpha*v3 + beta*c[3]
}

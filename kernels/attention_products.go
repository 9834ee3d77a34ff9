package kernels

// The attention backward's three products for one (b, h) pair, on the
// Sgemm micro-kernels directly:
//
//	dQ = dA·K,   dK = dAᵀ·Q,   dV = Pᵀ·dout     (T×T by T×hd, into dqkv)
//
// dA and P are lower triangular (row t is zero past column t), so each
// tile of MR or 2·MR rows sums only over the p that can be non-zero: rows
// [r0, r1) of dQ over p < r1 (the terms dropped are the +0 past the
// diagonal, at the end of each sum), those of dK and dV over p ≥ r0 (the
// +0 before the diagonal, at the start of each sum): about half the
// multiply-adds of the full square. A sum of +0 times finite values is
// +0, so the dropped leading terms leave every bit of dK and dV as the
// full products make it; the dropped trailing ones leave dQ the same
// except that a sum which underflowed to −0 stays −0 instead of becoming
// +0. Each element is otherwise the one fused chain over p in order that
// Sgemm computes (every tile kernel gives the same sums), so the products
// equal mustSgemm's over the whole square (TestAttentionProductsMatchSgemm).
// K, Q and dout are packed once per pair as B slivers (loadBackward); dA
// and P are read in place (their buffers have 2·MR zero rows past T for the last tiles).
// A sum longer than sgemmKC would be split into K panels by Sgemm, so for
// T > sgemmKC the pair runs on mustSgemm over the whole square instead.

// products sets one head's dQ, dK and dV from the loaded dA, P and dout,
// with q, k, v (and dq, dk, dv) at columns off, c+off and 2c+off of the
// rows of qkv (dqkv), row stride 3c.
func (w *headWork) products(kern *sgemmKernelSet, qkv, dqkv []float32, c, off int) {
	T, hd, ld := w.T, w.hd, 3*c
	q, k := qkv[off:], qkv[c+off:]
	dq, dk, dv := dqkv[off:], dqkv[c+off:], dqkv[2*c+off:]
	if T > sgemmKC {
		mustSgemm(kern, false, T, hd, T, w.dat, T, k, ld, dq, ld)
		mustSgemm(kern, true, T, hd, T, w.dat, T, q, ld, dk, ld)
		mustSgemm(kern, true, T, hd, T, w.pt, T, w.doFrom(0), w.doLd, dv, ld)
		return
	}
	// Head sizes of whole pairs of slivers (32, 64, …) take the 6×32
	// kernel on 6-row tiles (A read once for both slivers); others the
	// 12×16 one on 12-row tiles where there is one.
	pair := kern.tile2 != nil && hd%(2*sgemmNR) == 0
	for r0 := 0; r0 < T; {
		mr := sgemmMR
		if !pair && kern.tile12 != nil && r0+2*sgemmMR <= T {
			mr = 2 * sgemmMR
		}
		r1 := min(r0+mr, T)
		for j := 0; j < hd; j += sgemmNR {
			nr := min(sgemmNR, hd-j)
			bs := (j / sgemmNR) * T * sgemmNR // this sliver in bq, bk, bo
			if pair && r1-r0 == sgemmMR {
				b1 := bs + T*sgemmNR // the next sliver
				kern.tile2(r1, w.dat[r0*T:], T, 1, w.bk[bs:], w.bk[b1:], dq[r0*ld+j:], ld, 1, 0)
				kern.tile2(T-r0, w.dat[r0*T+r0:], 1, T, w.bq[bs+r0*sgemmNR:], w.bq[b1+r0*sgemmNR:], dk[r0*ld+j:], ld, 1, 0)
				kern.tile2(T-r0, w.pt[r0*T+r0:], 1, T, w.bo[bs+r0*sgemmNR:], w.bo[b1+r0*sgemmNR:], dv[r0*ld+j:], ld, 1, 0)
				j += sgemmNR
				continue
			}
			w.tile(kern, mr, r1-r0, nr, r1, w.dat[r0*T:], T, 1, w.bk[bs:], dq[r0*ld+j:], ld)
			w.tile(kern, mr, r1-r0, nr, T-r0, w.dat[r0*T+r0:], 1, T, w.bq[bs+r0*sgemmNR:], dk[r0*ld+j:], ld)
			w.tile(kern, mr, r1-r0, nr, T-r0, w.pt[r0*T+r0:], 1, T, w.bo[bs+r0*sgemmNR:], dv[r0*ld+j:], ld)
		}
		r0 += mr
	}
}

// tile sets the rows×cols corner of an mr×16 block of C (mr = MR or 2·MR,
// the kernel's height) to the kc-long sums of A (element (r,p) at
// a[r·rs + p·ks], mr rows readable) and the packed B sliver b: in place
// when the block is whole, else through w.tmp, one MR-row half at a time.
func (w *headWork) tile(kern *sgemmKernelSet, mr, rows, cols, kc int, a []float32, rs, ks int, b, c []float32, ldc int) {
	if rows == mr && cols == sgemmNR {
		if mr == sgemmMR {
			kern.tile(kc, a, rs, ks, b, c, ldc, 1, 0)
		} else {
			kern.tile12(kc, a, a[sgemmMR*rs:], rs, ks, b, c, ldc, 1, 0)
		}
		return
	}
	for h := 0; h < rows; h += sgemmMR {
		kern.tile(kc, a[h*rs:], rs, ks, b, w.tmp[:], sgemmNR, 1, 0)
		for r := range min(sgemmMR, rows-h) {
			copy(c[(h+r)*ldc:][:cols], w.tmp[r*sgemmNR:][:cols])
		}
	}
}

// forwardTiled is the forward of one pair whose head size needs no
// padding (hd = hdp), its k loaded as B slivers (loadForward): q, k, v
// in the T rows of qkv (row stride ld, columns off, c+off, 2c+off), P into
// att's T×T rows, the output into out's T rows (row stride c). Rows run in
// blocks of 12 (6 without the 12-row kernel): the block's scores against
// every key up to its last row come from the micro-kernels, each the one
// fused chain over the head's dimensions in order from +0 that gemvT makes
// (so the same bits), then each row's softmax and p-weighted sum of V as
// in the row-by-row loop. Scores past a row's own position are computed
// into the block's scratch and never read. The rows of P are only
// written here, so nothing asks for them ahead (prefetchRows is for
// reading them back).
func (w *headWork) forwardTiled(kern *sgemmKernelSet, qkv []float32, ld, c, off int, scale float32, att, out []float32) {
	T, hd := w.T, w.hd
	mr := w.blockRows(kern)
	for r0 := 0; r0 < T; r0 += mr {
		r1 := min(r0+mr, T)
		w.scoreBlock(kern, qkv[off:], ld, r0, r1, mr, w.bkt)
		for t := r0; t < r1; t++ {
			row := att[t*T:][:t+1]
			softmaxRow(w.sblk[(t-r0)*w.sld:][:t+1], scale, row)
			gemvN(row, w.v, t+1, out[t*c:][:hd])
		}
	}
}

// blockRows is the height of forwardTiled's row blocks: 12 with the
// 12-row kernel, else 6.
func (w *headWork) blockRows(kern *sgemmKernelSet) int {
	if kern.tile12 != nil {
		return 2 * sgemmMR
	}
	return sgemmMR
}

// scoreBlock sets rows [0, r1−r0) of sblk to the products of rows
// [r0, r1) of a (hd values each, row stride rs) with the keys [0, r1) of
// bt (hd×16 B slivers): w.sblk[(t−r0)·sld + s] = Σ_i a[t·rs+i]·key_s[i],
// each the fused chain over i in order from +0 (gemvT's), then ×1.
// Columns up to r1 rounded up to 16 are written; a last block shorter
// than mr is read from a copy (qtail) so no row past T is read.
func (w *headWork) scoreBlock(kern *sgemmKernelSet, a []float32, rs, r0, r1, mr int, bt []float32) {
	hd := w.hd
	a = a[r0*rs:]
	if r1-r0 < mr {
		for r := range r1 - r0 {
			copy(w.qtail[r*hd:][:hd], a[r*rs:][:hd])
		}
		a, rs = w.qtail, hd
	}
	for j := 0; j < r1; j += sgemmNR {
		b, sc := bt[(j/sgemmNR)*hd*sgemmNR:], w.sblk[j:]
		if mr == sgemmMR {
			kern.tile(hd, a, rs, 1, b, sc, w.sld, 1, 0)
		} else {
			kern.tile12(hd, a, a[sgemmMR*rs:], rs, 1, b, sc, w.sld, 1, 0)
		}
	}
}

package kernels

import "sync"

// headWork is one goroutine's scratch for one (b, h) pair at a time: the
// head's q and v as T rows of hdp (head size rounded up to 8, zero
// padded), k and v transposed as hdp rows of ld (T rounded up to 8), and
// for the backward dout's rows and dA and P row-major (T×T; the upper
// triangles s > t are never written, so stay zero). Padding is written
// once (zero) and never touched, so it adds nothing to any product. Where
// hd = hdp there is no padding to add, and the kernels read q (forward)
// and dout (backward) where they are stored instead of copying them: the
// copies would hold the same values, so the results are the same.
type headWork struct {
	T, hd, hdp, ld int
	q, v           []float32
	kt, vt         []float32
	sc, o          []float32
	do, dat, pt    []float32

	// For forwardTiled: k transposed as B slivers (bkt), the scores of
	// one block of up to 12 rows (sblk, row stride sld = T rounded up to
	// 16) and the last block's q rows (qtail, row stride hdp).
	bkt, sblk, qtail []float32
	sld              int
	bvt              []float32 // the backward's v as B slivers, as bkt

	// bq, bk, bo are q, k and dout packed as B slivers (T×16 each) for
	// the backward's products, tmp one tile of their edges.
	bq, bk, bo []float32
	tmp        [sgemmMR * sgemmNR]float32

	// dout and doLd are where the backward reads the pair's dout rows:
	// in place (row stride C) when hd = hdp, else from do (row stride hdp).
	dout []float32
	doLd int
}

func roundUp8(n int) int { return (n + 7) &^ 7 }

// headWorkPool keeps scratch between calls: a training step calls the
// kernels once per layer with the same sizes. A pooled headWork's padding
// is still zero (nothing writes it), and dat and pt are written (lower
// triangles) before they are read.
var headWorkPool sync.Pool

func getHeadWork(T, hd int, backward bool) *headWork {
	if w, ok := headWorkPool.Get().(*headWork); ok && w.T == T && w.hd == hd && (w.vt != nil || !backward) {
		return w
	}
	return newHeadWork(T, hd, backward)
}

func newHeadWork(T, hd int, backward bool) *headWork {
	w := &headWork{T: T, hd: hd, hdp: roundUp8(hd), ld: roundUp8(T)}
	rows, cols := T*w.hdp, w.hdp*w.ld
	w.q, w.v = make([]float32, rows), make([]float32, rows)
	w.kt, w.sc, w.o = make([]float32, cols), make([]float32, w.ld), make([]float32, w.hdp)
	w.sld = ceilDiv(T, sgemmNR) * sgemmNR
	w.bkt, w.sblk = make([]float32, w.sld*w.hdp), make([]float32, 2*sgemmMR*w.sld)
	w.qtail = make([]float32, 2*sgemmMR*w.hdp)
	if backward {
		w.vt = make([]float32, cols)
		// dA and P get 2·MR rows of zeros past the last: the products
		// read whole 12-row A slivers in place (attention_products.go).
		w.do, w.dat, w.pt = make([]float32, rows), make([]float32, (T+2*sgemmMR)*T), make([]float32, (T+2*sgemmMR)*T)
		bs := ceilDiv(hd, sgemmNR) * sgemmNR * T
		w.bq, w.bk, w.bo = make([]float32, bs), make([]float32, bs), make([]float32, bs)
		w.bvt = make([]float32, w.sld*w.hdp)
	}
	return w
}

// loadForward gathers what the forward needs of the head whose columns
// [off, off+hd) of q are in the T rows that start at qkv[base] with row
// stride stride (k at +c, v at +2c): k transposed, v's rows and, when hd
// is not a multiple of 8, q's rows zero padded.
//
// Where hd = hdp (forwardTiled), k is transposed into B slivers instead:
// key s, dimension i at bkt[(s/16)·hd·16 + i·16 + s mod 16].
func (w *headWork) loadForward(qkv []float32, base, stride, c, off int) {
	if w.hd == w.hdp {
		toSlivers(w.bkt, qkv[base+c+off:], w.T, w.hd, stride)
	}
	for s := 0; s < w.T; s++ {
		row := qkv[base+s*stride:]
		copy(w.v[s*w.hdp:][:w.hd], row[2*c+off:2*c+off+w.hd])
		if w.hd == w.hdp {
			continue
		}
		k := row[c+off : c+off+w.hd]
		copy(w.q[s*w.hdp:][:w.hd], row[off:off+w.hd])
		for i, x := range k {
			w.kt[i*w.ld+s] = x
		}
	}
}

// loadBackward gathers what the backward needs besides P: v transposed,
// dout's rows (T rows at dout[0], row stride c, columns [off, off+hd))
// copied zero padded when hd is not a multiple of 8, and k, q and dout
// packed as B slivers for the products (attention_products.go). It
// reports whether the pair's q, k, v and dout are all finite, checked on
// those buffers, which hold exactly their values and zeros.
func (w *headWork) loadBackward(kern *sgemmKernelSet, qkv, dout []float32, base, c, off int) bool {
	vt := w.vt
	if w.hd == w.hdp { // as B slivers, for scoreBlock
		vt = w.bvt
		toSlivers(w.bvt, qkv[base+2*c+off:], w.T, w.hd, 3*c)
	} else {
		for s := 0; s < w.T; s++ {
			v := qkv[base+s*3*c+2*c+off:][:w.hd]
			for i, x := range v {
				w.vt[i*w.ld+s] = x
			}
		}
	}
	if w.hd == w.hdp {
		w.dout, w.doLd = dout[off:], c
	} else {
		for s := 0; s < w.T; s++ {
			copy(w.do[s*w.hdp:][:w.hd], dout[s*c+off:s*c+off+w.hd])
		}
		w.dout, w.doLd = w.do, w.hdp
	}
	ld := 3 * c
	sgemmPackB(kern, w.bk, false, qkv[base+c+off:], ld, 0, w.T, 0, w.hd)
	sgemmPackB(kern, w.bq, false, qkv[base+off:], ld, 0, w.T, 0, w.hd)
	sgemmPackB(kern, w.bo, false, w.doFrom(0), w.doLd, 0, w.T, 0, w.hd)
	return allFinite(vt) && allFinite(w.bk) && allFinite(w.bq) && allFinite(w.bo)
}

// softmaxGrads sets the pair's dA (w.dat) and a copy of P (w.pt), row by
// row: dP_t = dout_t·Vᵀ, dA_t = P_t ⊙ (dP_t − Σ P_t·dP_t)/√hd (the dot in
// float64), P from the pair's T×T rows of att. Where hd = hdp the dP of a
// block of rows come from the micro-kernels (scoreBlock, gemvT's sums).
func (w *headWork) softmaxGrads(kern *sgemmKernelSet, att []float32, scale float64) {
	T := w.T
	mr := w.blockRows(kern)
	prefetchRows(att, T, 0, mr)
	for r0 := 0; r0 < T; r0 += mr {
		r1 := min(r0+mr, T)
		if w.hd == w.hdp {
			w.scoreBlock(kern, w.dout, w.doLd, r0, r1, mr, w.bvt)
		}
		prefetchRows(att, T, r1, r1+mr)
		for t := r0; t < r1; t++ {
			dp := w.sblk[(t-r0)*w.sld:]
			if w.hd != w.hdp {
				gemvT(w.doFrom(t)[:w.hdp], w.vt, w.ld, roundUp8(t+1), w.sc)
				dp = w.sc
			}
			row := att[t*T:][:t+1]
			softmaxGradRow(row, dp[:t+1], scale, w.dat[t*T:t*T+t+1])
			copy(w.pt[t*T:t*T+t+1], row)
		}
	}
}

// doFrom is the pair's dout from row t on (row stride doLd; hdp values a
// row, zero padded past hd).
func (w *headWork) doFrom(t int) []float32 { return w.dout[t*w.doLd:] }

// toSlivers writes T rows of hd values (a multiple of 8), row s at
// src[s·ld:], transposed as B slivers: row s, column i at dst[(s/16)·hd·16 +
// i·16 + s mod 16]. With AVX2, 8 rows at a time by 8×8 block transposes;
// the values are copied either way.
func toSlivers(dst, src []float32, T, hd, ld int) {
	s := 0
	if useAVX2 {
		for ; s+8 <= T; s += 8 {
			blk := dst[(s/sgemmNR)*hd*sgemmNR+s%sgemmNR:]
			for i := 0; i < hd; i += 8 {
				transpose8(blk[i*sgemmNR:], src[s*ld+i:], sgemmNR, ld)
			}
		}
	}
	for ; s < T; s++ {
		bs := dst[(s/sgemmNR)*hd*sgemmNR+s%sgemmNR:]
		for i, x := range src[s*ld:][:hd] {
			bs[i*sgemmNR] = x
		}
	}
}

// transpose8 sets dst[i·ldd + r] = src[r·lds + i] for r, i < 8 with
// transpose8AVX2, after checking that both blocks are in their slices.
func transpose8(dst, src []float32, ldd, lds int) {
	_, _ = dst[7*ldd+7], src[7*lds+7]
	transpose8AVX2(&dst[0], &src[0], ldd, lds)
}

// finiteZeros is what allFinite multiplies by.
var finiteZeros [1024]float32

// allFinite reports whether every value of x is finite: Σ x·0 is 0 when
// every x is finite and NaN as soon as one is NaN or ±Inf, one vectorised
// dot product per block of len(finiteZeros) values.
func allFinite(x []float32) bool {
	dot := sgemmKernels().dot
	for len(x) > 0 {
		n := min(len(x), len(finiteZeros))
		if dot(x[:n], finiteZeros[:n]) != 0 {
			return false
		}
		x = x[n:]
	}
	return true
}

// prefetchRows asks for rows [t0, t1) (cut at T) of the causal T×T matrix
// p, row t's first t+1 values, to be brought into cache. The attention's
// rows of P were written by the forward long before the backward reads
// them, and both walk them in short runs the hardware prefetcher misses;
// asking for the next block's rows a block ahead hides most of that.
func prefetchRows(p []float32, T, t0, t1 int) {
	if !useAVX2 {
		return
	}
	for t := t0; t < min(t1, T); t++ {
		prefetchFloats(&p[t*T], t+1)
	}
}

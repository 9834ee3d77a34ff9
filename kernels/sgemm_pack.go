package kernels

import "sync"

// Packing copies a block of op(A) or op(B) into the order in which the
// micro-kernel reads it, so that its inner loop only walks forward through
// contiguous memory. Partial slivers are padded with zeros: the kernel always
// computes a full 6×16 tile and the driver keeps only the valid part.

// sgemmPackA packs rows [i0, i0+mc) and columns [p0, p0+kc) of op(A) (m,k)
// into dst as ceil(mc/6) slivers; sliver s is (kc,6): dst[s·kc·6 + p·6 + r]
// = op(A)[i0+6s+r][p0+p].
func sgemmPackA(dst []float32, transA bool, a []float32, lda, i0, mc, p0, kc int) {
	for s := 0; s*sgemmMR < mc; s++ {
		rows := min(sgemmMR, mc-s*sgemmMR)
		out := dst[s*kc*sgemmMR : (s+1)*kc*sgemmMR]
		ib := i0 + s*sgemmMR
		switch {
		case transA:
			// A stored (k,m): the rows values of each k step are
			// adjacent; zero-padded.
			for p := range kc {
				o := out[p*sgemmMR : p*sgemmMR+sgemmMR]
				for r, x := range a[(p0+p)*lda+ib:][:rows] {
					o[r] = x
				}
				clear(o[rows:])
			}
		default:
			// A stored (m,k): each row is contiguous along k, so it is
			// copied row by row into every 6th place; zero-padded.
			if rows < sgemmMR {
				clear(out)
			}
			for r := range rows {
				for p, x := range a[(ib+r)*lda+p0:][:kc] {
					out[p*sgemmMR+r] = x
				}
			}
		}
	}
}

// sgemmPackB packs rows [p0, p0+kc) and columns [j0, j0+nc) of op(B) (k,n)
// into dst as ceil(nc/16) slivers; sliver s is (kc,16): dst[s·kc·16 + p·16
// + c] = op(B)[p0+p][j0+16s+c].
func sgemmPackB(kern *sgemmKernelSet, dst []float32, transB bool, b []float32, ldb, p0, kc, j0, nc int) {
	for s := 0; s*sgemmNR < nc; s++ {
		cols := min(sgemmNR, nc-s*sgemmNR)
		out := dst[s*kc*sgemmNR : (s+1)*kc*sgemmNR]
		jb := j0 + s*sgemmNR
		if !transB && cols == sgemmNR {
			// B is stored (k,n): each k step is a contiguous run of 16.
			kern.pack16(out, b[p0*ldb+jb:], kc, ldb)
			continue
		}
		if !transB {
			for p := 0; p < kc; p++ {
				src := b[(p0+p)*ldb+jb : (p0+p)*ldb+jb+cols]
				o := out[p*sgemmNR : p*sgemmNR+sgemmNR]
				n := copy(o, src)
				clear(o[n:])
			}
			continue
		}
		// B is stored (n,k): interleave 16 rows of the stored matrix.
		if cols == sgemmNR {
			kern.packT16(out, b[jb*ldb+p0:], kc, ldb)
			continue
		}
		for c := 0; c < sgemmNR; c++ {
			if c >= cols {
				for p := 0; p < kc; p++ {
					out[p*sgemmNR+c] = 0
				}
				continue
			}
			src := b[(jb+c)*ldb+p0 : (jb+c)*ldb+p0+kc]
			for p, v := range src {
				out[p*sgemmNR+c] = v
			}
		}
	}
}

// sgemmPack16Go copies kc runs of 16 floats, src[p·ld:][:16], to dst[p·16:].
func sgemmPack16Go(dst, src []float32, kc, ld int) {
	_ = src[(kc-1)*ld+sgemmNR-1]
	for p := range kc {
		s := src[p*ld : p*ld+sgemmNR : p*ld+sgemmNR]
		o := dst[p*sgemmNR : p*sgemmNR+sgemmNR : p*sgemmNR+sgemmNR]
		o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7] = s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]
		o[8], o[9], o[10], o[11], o[12], o[13], o[14], o[15] = s[8], s[9], s[10], s[11], s[12], s[13], s[14], s[15]
	}
}

// sgemmPackT16Go copies 16 runs of kc floats, src[c·ld:][:kc], to
// dst[p·16 + c].
func sgemmPackT16Go(dst, src []float32, kc, ld int) {
	_ = src[(sgemmNR-1)*ld+kc-1]
	for c := range sgemmNR {
		for p, v := range src[c*ld : c*ld+kc] {
			dst[p*sgemmNR+c] = v
		}
	}
}

// sgemmPool recycles packing buffers across calls and goroutines, so a
// training loop calling Sgemm thousands of times allocates them only after a
// garbage collection has emptied the pool. A and B panels have their own
// pools because their sizes differ by an order of magnitude.
type sgemmPool struct{ sync.Pool }

var sgemmPoolA, sgemmPoolB sgemmPool

// get returns a buffer of n floats (contents undefined); a pooled buffer that
// is too small is dropped for the garbage collector.
func (p *sgemmPool) get(n int) *[]float32 {
	if b, ok := p.Get().(*[]float32); ok && cap(*b) >= n {
		*b = (*b)[:n]
		return b
	}
	buf := make([]float32, n)
	return &buf
}

func (p *sgemmPool) put(b *[]float32) { p.Put(b) }

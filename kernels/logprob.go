package kernels

import (
	"math"
	"sync/atomic"
	"unsafe"
)

// TokenLogProb is the fast forward of the fused token log-prob, with the
// contract of TokenLogProbRef (shapes, errors, the NaN / ±Inf rows). logits
// is (n, v) row-major; targets, logp, lse and ent are (n); ent may be nil.
// Impl says which fast path runs (AVX2+FMA assembly or portable Go).
//
// Each row is read from memory once: an online max with a rescaled running
// sum over blocks of 256 logits (logprob_amd64.s explains the update), the
// exponentials from the vectorised exp of exp.go (≤ 1 ulp). The AVX2 path
// sums in 16 float32 lanes (each adds v/16 terms), the Go path in float32
// per block and float64 across blocks; log s and the outputs are finished
// in float64. Rows that are not an ordinary distribution (NaN, +Inf, all
// −Inf) are recomputed by the reference loop.
//
// Agreement with the reference (TestTokenLogProbMatchesRef and the edge
// tests): every output satisfies |fast − ref| ≤ 1e-5 + 1e-5·|ref|, NaN
// where the reference is NaN, the same infinity where it is infinite.
// Rounding the float64 result to float32 alone costs up to 3e-8·|ref|; the
// float32 lane sums (2048 terms per lane at v = 32768) and the float32 log
// add a few 1e-7 relative. The worst error seen in the tests, at v = 32768,
// is 5% of this bound (the entropy); lse and logp stay near 1%.
//
// Rows are handed out by parallelFor (parallel.go) in blocks of whole rows
// to up to GOMAXPROCS goroutines once the work repays them. Each row is
// computed by one goroutine with the same operations whatever the split, so
// results do not depend on the thread count (TestTokenLogProbDeterministic).
func TokenLogProb(logits []float32, n, v int, targets []int32, logp, lse, ent []float32) error {
	if err := CheckLogProbArgs(logits, n, v, targets, logp, lse, ent); err != nil {
		return err
	}
	if !worthParallel(n, 4*v) { // inline: no closure, no allocation
		forwardRows(logits, v, targets, logp, lse, ent, 0, n)
		return nil
	}
	parallelFor(n, 4*v, func(lo, hi int) {
		forwardRows(logits, v, targets, logp, lse, ent, lo, hi)
	})
	return nil
}

// TokenLogProbBackward is the fast backward, with the contract of
// TokenLogProbBackwardRef: dlogits (n, v) receives, or with accumulate has
// added to it, dz = gLogp·(1[j=y] − p) − gEnt·p·(log p + H), p recomputed
// from the saved lse in one pass per row (exp of exp.go). gEnt (and ent)
// may be nil for no entropy term. Same tolerance, threading and determinism
// as TokenLogProb. An overwriting backward into a dlogits of 64 MiB or more
// (32-byte aligned, v a multiple of 8) uses non-temporal stores: dlogits
// then goes to memory, not the caches.
func TokenLogProbBackward(logits []float32, n, v int, targets []int32, lse, ent, gLogp, gEnt, dlogits []float32, accumulate bool) error {
	if err := CheckLogProbBackwardArgs(logits, n, v, targets, lse, ent, gLogp, gEnt, dlogits); err != nil {
		return err
	}
	mode := backwardMode(n, v, dlogits, gEnt != nil, accumulate)
	if !worthParallel(n, 4*v) {
		backwardRows(logits, v, targets, lse, ent, gLogp, gEnt, dlogits, mode, 0, n)
		return nil
	}
	parallelFor(n, 4*v, func(lo, hi int) {
		backwardRows(logits, v, targets, lse, ent, gLogp, gEnt, dlogits, mode, lo, hi)
	})
	return nil
}

// Modes of the backward row loops.
const (
	dzAccumulate  = 1 // add to dlogits
	dzEntropy     = 2 // the entropy term is present
	dzNonTemporal = 4 // overwrite with non-temporal stores (AVX2 path)
)

// backwardMode picks the row loops' mode. Non-temporal stores need every
// row to start 32-byte aligned: dlogits aligned and v a multiple of 8.
func backwardMode(n, v int, dlogits []float32, withEnt, accumulate bool) int {
	mode := 0
	if accumulate {
		mode |= dzAccumulate
	}
	if withEnt {
		mode |= dzEntropy
	}
	if !accumulate && v%8 == 0 && 4*n*v >= ntMinBytes && uintptr(unsafe.Pointer(unsafe.SliceData(dlogits)))%32 == 0 {
		mode |= dzNonTemporal
	}
	return mode
}

// ntMinBytes is the size of dlogits from which an overwriting backward
// bypasses the caches (non-temporal stores): twice this machine's 32 MiB
// last-level cache, so dlogits would be evicted before anyone reads it, and
// the stores skip the read-for-ownership of every line (a quarter of the
// backward's memory traffic). Tests lower it to exercise that path.
var ntMinBytes = 64 << 20

// refRowsTaken counts the rows the fast forward handed to the reference, so
// tests can check that ordinary rows never take that path.
var refRowsTaken atomic.Int64

// rowBatch rows go to the row loops per call; their per-row scalars live in
// a stack array of 3·rowBatch floats.
const rowBatch = 64

// forwardRows does rows [lo, hi): the row loops give m, s, t per row with
// s = Σ e^(z−m) and t = Σ e^(z−m)·(z−m), then log s for the batch (the
// vectorised log of exp_amd64.h; math.Log costs as much as the row itself
// at v = 128); then, in float64, lse = m + log s, logp = (z_y − m) − log s,
// H = log s − t/s.
func forwardRows(logits []float32, v int, targets []int32, logp, lse, ent []float32, lo, hi int) {
	var acc [4 * rowBatch]float32 // m, s, t, log s
	ms, ss, ts, logs := acc[:rowBatch], acc[rowBatch:2*rowBatch], acc[2*rowBatch:3*rowBatch], acc[3*rowBatch:]
	for r0 := lo; r0 < hi; r0 += rowBatch {
		rows := min(r0+rowBatch, hi) - r0
		x := logits[r0*v : (r0+rows)*v]
		if useAVX2 {
			lseRowsAVX2(&x[0], v, rows, &acc[0], rowBatch, ent != nil)
			logAVX2(logs[:rows], ss[:rows])
		} else {
			lseRowsGo(x, v, rows, ms, ss, ts)
			for k, s := range ss[:rows] {
				logs[k] = float32(math.Log(float64(s)))
			}
		}
		for k := range rows {
			i := r0 + k
			m, s, t := float64(ms[k]), float64(ss[k]), float64(ts[k])
			// An ordinary row has a finite max and s ≥ 1 (its max adds e^0).
			// NaN or +Inf logits make s NaN; an all −Inf row leaves s = 0.
			if !(s >= 1) || math.IsInf(s, 1) || math.IsInf(m, 0) || math.IsNaN(t) {
				refRowsTaken.Add(1)
				lp, l, h := tokenLogProbRefRow(logits[i*v:(i+1)*v], targets[i], ent != nil)
				logp[i], lse[i] = lp, l
				if ent != nil {
					ent[i] = h
				}
				continue
			}
			ls := float64(logs[k])
			lse[i] = float32(m + ls)
			logp[i] = float32(float64(logits[i*v+int(targets[i])]) - m - ls)
			if ent != nil {
				ent[i] = float32(ls - t/s)
			}
		}
	}
}

// backwardRows does rows [lo, hi): dz = e^lp·(a + b·lp) with lp = z − lse,
// a = −(g + h·H), b = −h, from the row loops; then +g at the target, or NaN
// over the row when lse is not finite.
func backwardRows(logits []float32, v int, targets []int32, lse, ent, gLogp, gEnt, dlogits []float32, mode int, lo, hi int) {
	var par [3 * rowBatch]float32
	for r0 := lo; r0 < hi; r0 += rowBatch {
		r1 := min(r0+rowBatch, hi)
		for i := r0; i < r1; i++ {
			k := 3 * (i - r0)
			g, h, bigH := float64(gLogp[i]), 0.0, 0.0
			if gEnt != nil {
				h, bigH = float64(gEnt[i]), float64(ent[i])
			}
			par[k], par[k+1], par[k+2] = lse[i], float32(-(g + h*bigH)), float32(-h)
		}
		x, dz := logits[r0*v:r1*v], dlogits[r0*v:r1*v]
		if useAVX2 {
			dzRowsAVX2(&x[0], v, r1-r0, &par[0], &dz[0], mode)
		} else {
			dzRowsGo(x, v, r1-r0, par[:], dz, mode&dzAccumulate != 0)
		}
		for i := r0; i < r1; i++ {
			if l := float64(lse[i]); math.IsNaN(l) || math.IsInf(l, 0) {
				drow := dlogits[i*v : (i+1)*v]
				for j := range drow {
					drow[j] = float32(math.NaN())
				}
				continue
			}
			dlogits[i*v+int(targets[i])] += gLogp[i]
		}
	}
}

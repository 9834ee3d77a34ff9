package kernels

import (
	"fmt"
	"math"
)

// AttentionForward is the fast causal self-attention forward; the contract
// (layout, causality, NaN, errors) is AttentionForwardRef's. The (b, h)
// pairs run in parallel above a size threshold. Each pair first copies its
// q, k, v into contiguous zero-padded buffers (and k transposed), so that
// the scores of row t are one product q_t·Kᵀ over contiguous memory and the
// output one p-weighted sum of V rows (attention_gemv.go, AVX2 where the CPU
// has it). Products and the softmax's exponentials run in float32, its
// normaliser in float64 (softmaxRow). Scores are computed in blocks of 8
// keys, so up to 7 values past t are computed into scratch and thrown away;
// they never reach a result. Where the head size is a multiple of 8 (no
// padding), the scores of 12 rows at a time come from the Sgemm
// micro-kernels instead, the same sums (forwardTiled).
// Every output is summed in a fixed order, so results do not depend on the
// goroutine count.
func AttentionForward(qkv []float32, sh AttentionShape, out, att []float32) error {
	if err := checkAttention(sh, len(qkv), len(out), len(att), "out"); err != nil {
		return err
	}
	T, C, H, hd := sh.SeqLen, sh.Channels, sh.Heads, sh.HeadSize()
	scale := float32(1 / math.Sqrt(float64(hd)))
	kern := sgemmKernels()
	parallelFor(sh.Batch*H, 2*T*T*hd, func(lo, hi int) {
		w := getHeadWork(T, hd, false)
		defer headWorkPool.Put(w)
		for bh := lo; bh < hi; bh++ {
			b, h := bh/H, bh%H
			base := b * T * 3 * C
			w.loadForward(qkv, base, 3*C, C, h*hd)
			if w.hd == w.hdp {
				w.forwardTiled(kern, qkv[base:], 3*C, C, h*hd, scale, att[bh*T*T:], out[b*T*C+h*hd:])
				continue
			}
			for t := 0; t < T; t++ {
				prefetchRows(att[bh*T*T:], T, t+1, t+2) // the next row, written next
				gemvT(w.q[t*w.hdp:(t+1)*w.hdp], w.kt, w.ld, roundUp8(t+1), w.sc)
				row := att[(bh*T+t)*T:][:t+1]
				softmaxRow(w.sc[:t+1], scale, row)
				gemvN(row, w.v, t+1, w.o)
				copy(out[(b*T+t)*C+h*hd:][:hd], w.o)
			}
		}
	})
	return nil
}

// softmaxRow sets p = softmax(scale·x) over the n = len(x) ≥ 1 scores x
// (overwritten with scratch): the max subtracted before the shared
// float32 exp, the normaliser summed in float64: with AVX2 three vector
// passes in assembly (softmax_amd64.s, its float64 sum in 8 partial sums;
// with AVX-512 the same 16 lanes at a time, bitwise equal; on arm64 the
// same passes in NEON, softmax_arm64.s, its sum in 4 partial sums), else
// this Go loop (a sequential sum). p may be x.
func softmaxRow(x []float32, scale float32, p []float32) {
	switch {
	case avx512On():
		softmaxRowAVX512(&x[0], len(x), scale, &p[0])
		return
	case useAVX2:
		softmaxRowAVX2(&x[0], len(x), scale, &p[0])
		return
	case useNEON:
		softmaxRowNEON(&x[0], len(x), scale, &p[0])
		return
	}
	maxA := float32(math.Inf(-1))
	for s, a := range x {
		a *= scale
		x[s] = a
		if a > maxA {
			maxA = a
		}
	}
	expShift(x, maxA)
	sum := 0.0
	for _, e := range x {
		sum += float64(e)
	}
	inv := float32(1 / sum)
	for s, e := range x {
		p[s] = e * inv
	}
}

// softmaxGradRow sets da[s] = p[s]·(dp[s] − Σ p·dp)·scale for one row,
// in float64 (the dot too), rounded to float32 on store: with AVX2 two
// vector passes in assembly (softmax_amd64.s, the dot in 8 partial sums;
// with AVX-512 the same in 512-bit registers, bitwise equal), else this Go
// loop (a sequential dot).
func softmaxGradRow(p, dp []float32, scale float64, da []float32) {
	switch {
	case avx512On():
		softmaxGradRowAVX512(&p[0], &dp[0], len(p), scale, &da[0])
		return
	case useAVX2:
		softmaxGradRowAVX2(&p[0], &dp[0], len(p), scale, &da[0])
		return
	}
	dot := 0.0
	for s, ps := range p {
		dot += float64(ps) * float64(dp[s])
	}
	for s, ps := range p {
		da[s] = float32(float64(ps) * (float64(dp[s]) - dot) * scale)
	}
}

// AttentionBackward is the fast backward; the contract is
// AttentionBackwardRef's (dqkv overwritten). Parallel over (b, h) pairs,
// which write disjoint parts of dqkv, so no locks and no dependence on the
// goroutine count. Per pair, one pass over the rows and then three small
// matrix products on the Sgemm micro-kernels:
//
//	rows t:  dP_t = dout_t·Vᵀ, dA_t = P_t ⊙ (dP_t − Σ P_t·dP_t)/√hd (the dot
//	         in float64); dA and a copy of P are kept row-major with zero
//	         upper triangles (softmaxGrads)
//	dQ = dA·K,   dK = dAᵀ·Q,   dV = Pᵀ·dout     (T×T by T×hd, into dqkv)
//
// The products run tile by tile over the lower triangle's non-zero span
// (attention_products.go); each element is summed in a fixed order (p
// upwards), in float32 as a float32 matmul would. A zero times NaN or
// ±Inf is NaN, though: a pair whose q, k, v or dout holds a non-finite
// value would spread it to positions the reference never lets it reach, so
// such a pair is done by the reference loops instead
// (TestAttentionBackwardNonFiniteMatchesRef).
func AttentionBackward(qkv []float32, sh AttentionShape, att, dout, dqkv []float32) error {
	if err := checkAttention(sh, len(qkv), len(dout), len(att), "dout"); err != nil {
		return err
	}
	if len(dqkv) < sh.QKVLen() {
		return fmt.Errorf("attention backward: dqkv has %d values, want %d", len(dqkv), sh.QKVLen())
	}
	T, C, H, hd := sh.SeqLen, sh.Channels, sh.Heads, sh.HeadSize()
	scale := 1 / math.Sqrt(float64(hd))
	kern := sgemmKernels()
	parallelFor(sh.Batch*H, 8*T*T*hd, func(lo, hi int) {
		w := getHeadWork(T, hd, true)
		defer headWorkPool.Put(w)
		for bh := lo; bh < hi; bh++ {
			b, h := bh/H, bh%H
			base := b * T * 3 * C
			if !w.loadBackward(kern, qkv, dout[b*T*C:], base, C, h*hd) {
				attentionBackwardPairRef(qkv, sh, att, dout, dqkv, b, h)
				continue
			}
			w.softmaxGrads(kern, att[bh*T*T:], scale)
			w.products(kern, qkv[base:], dqkv[base:], C, h*hd)
		}
	})
	return nil
}

// mustSgemm is C (m,n) = op(A)·B on one goroutine, for operands the caller
// has already sized: an error here is a bug.
func mustSgemm(kern *sgemmKernelSet, transA bool, m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	if err := sgemmWith(kern, 1, transA, false, m, n, k, 1, a, lda, b, ldb, 0, c, ldc); err != nil {
		panic(err)
	}
}

package kernels

import (
	"fmt"
	"math"
)

// AttentionForward is the fast causal self-attention forward; the contract
// (layout, causality, NaN, errors) is AttentionForwardRef's. The (b, h)
// pairs run in parallel above a size threshold, and each pair is computed
// in a fixed order, so results do not depend on the goroutine count. The
// dot products q·k and the weighted sum of v run in float32 with four
// accumulators; the softmax max, exp and normaliser in float64 (fastExp).
// The scores are staged in the att row itself, so no scratch is needed.
func AttentionForward(qkv []float32, sh AttentionShape, out, att []float32) error {
	if err := checkAttention(sh, len(qkv), len(out), len(att), "out"); err != nil {
		return err
	}
	T, C, H, hd := sh.SeqLen, sh.Channels, sh.Heads, sh.HeadSize()
	scale := float32(1 / math.Sqrt(float64(hd)))
	parallelFor(sh.Batch*H, 2*T*T*hd, func(lo, hi int) {
		for bh := lo; bh < hi; bh++ {
			b, h := bh/H, bh%H
			base := b * T * 3 * C // row 0 of sequence b in qkv
			for t := 0; t < T; t++ {
				q := qkv[base+t*3*C+h*hd:][:hd]
				row := att[(bh*T+t)*T:][:t+1]
				maxA := float32(math.Inf(-1))
				for s := range row {
					a := dot32(q, qkv[base+s*3*C+C+h*hd:][:hd]) * scale
					row[s] = a
					if a > maxA {
						maxA = a
					}
				}
				sum := 0.0
				for s, a := range row {
					e := fastExp(float64(a - maxA))
					row[s] = float32(e)
					sum += e
				}
				inv := float32(1 / sum)
				o := out[(b*T+t)*C+h*hd:][:hd]
				clear(o)
				for s := range row {
					p := row[s] * inv
					row[s] = p
					axpy32(p, qkv[base+s*3*C+2*C+h*hd:][:hd], o)
				}
			}
		}
	})
	return nil
}

// AttentionBackward is the fast backward; the contract is
// AttentionBackwardRef's (dqkv overwritten). Parallel over (b, h) pairs,
// which write disjoint parts of dqkv, so no locks and no dependence on the
// goroutine count. dk and dv are accumulated in float32 over t (as a float32
// matmul would); the softmax-backward dot Σ P·dP is float64.
func AttentionBackward(qkv []float32, sh AttentionShape, att, dout, dqkv []float32) error {
	if err := checkAttention(sh, len(qkv), len(dout), len(att), "dout"); err != nil {
		return err
	}
	if len(dqkv) < sh.QKVLen() {
		return fmt.Errorf("attention backward: dqkv has %d values, want %d", len(dqkv), sh.QKVLen())
	}
	T, C, H, hd := sh.SeqLen, sh.Channels, sh.Heads, sh.HeadSize()
	scale := float32(1 / math.Sqrt(float64(hd)))
	parallelFor(sh.Batch*H, 4*T*T*hd, func(lo, hi int) {
		dP := make([]float32, T) // one scratch row per goroutine
		for bh := lo; bh < hi; bh++ {
			b, h := bh/H, bh%H
			base := b * T * 3 * C
			for s := 0; s < T; s++ {
				clear(dqkv[base+s*3*C+C+h*hd:][:hd])
				clear(dqkv[base+s*3*C+2*C+h*hd:][:hd])
			}
			for t := 0; t < T; t++ {
				row := att[(bh*T+t)*T:][:t+1]
				do := dout[(b*T+t)*C+h*hd:][:hd]
				dp := dP[:t+1]
				dot := 0.0
				for s := range dp {
					dp[s] = dot32(do, qkv[base+s*3*C+2*C+h*hd:][:hd])
					dot += float64(row[s]) * float64(dp[s])
				}
				q := qkv[base+t*3*C+h*hd:][:hd]
				dq := dqkv[base+t*3*C+h*hd:][:hd]
				clear(dq)
				for s, p := range row {
					dA := float32(float64(p)*(float64(dp[s])-dot)) * scale
					axpy32(dA, qkv[base+s*3*C+C+h*hd:][:hd], dq)
					axpy32(dA, q, dqkv[base+s*3*C+C+h*hd:][:hd])
					axpy32(p, do, dqkv[base+s*3*C+2*C+h*hd:][:hd])
				}
			}
		}
	})
	return nil
}

// dot32 is Σ a[i]·b[i] in float32 with four accumulators (len(b) ≥ len(a)).
func dot32(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// axpy32 is y += alpha·x (len(y) ≥ len(x)), unrolled by four.
func axpy32(alpha float32, x, y []float32) {
	y = y[:len(x)]
	i := 0
	for ; i+4 <= len(x); i += 4 {
		y[i] += alpha * x[i]
		y[i+1] += alpha * x[i+1]
		y[i+2] += alpha * x[i+2]
		y[i+3] += alpha * x[i+3]
	}
	for ; i < len(x); i++ {
		y[i] += alpha * x[i]
	}
}

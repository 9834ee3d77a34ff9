package model

import (
	"fmt"
	"math"

	"arew/kernels"
)

// The attention of a head-rows graph's last block, forward and backward:
// qkv (B·T, 3C) → out (R, C), R = capacity, C = heads·hd. The k-th listed
// row i = b·T + t attends, per head, to the keys and values of its own
// sequence's rows b·T + s, s ≤ t, exactly as the plain graph's row i does
// (engine.CausalSelfAttention); only its query is used, so the other rows'
// queries get no gradient. Rows past the listed ones (the unused capacity)
// get out 0. The probabilities are kept for the backward: att holds, per
// listed row k and head h, T entries at (k·heads + h)·T, of which s ≤ t are
// used.
//
// forward and backward are the fast path: the listed rows are increasing,
// so those of one sequence are consecutive; per sequence and head, the
// scores of its m listed rows against its first t_max+1 keys are one
// matrix product (kernels.Sgemm), the softmax over each row's causal
// prefix is the plain graph's kernel's (kernels.SoftmaxRow, and
// SoftmaxGradRow backward), the probabilities past it are set to 0, and
// the weighted sum of values is another product.
// forwardRef and backwardRef are the plain loops of the same sums, the
// reference the fast path is tested against (TestRowsAttentionMatchesRef).
type rowsAttention struct {
	batch, seqLen, c, heads, capacity int
}

func (a rowsAttention) hd() int { return a.c / a.heads }

// attLen is the length of the probability buffer.
func (a rowsAttention) attLen() int { return a.capacity * a.heads * a.seqLen }

func (a rowsAttention) pRow(att []float32, k, h int) []float32 {
	return att[(k*a.heads+h)*a.seqLen:][:a.seqLen]
}

// check reports a row list the op cannot read (SetHeadRows refuses them
// all; this guards the ops against a caller that bypassed it).
func (a rowsAttention) check(rows []int32) error {
	if len(rows) > a.capacity {
		return fmt.Errorf("rows attention: %d rows, capacity %d", len(rows), a.capacity)
	}
	for i, r := range rows {
		if r < 0 || int(r) >= a.batch*a.seqLen || (i > 0 && r <= rows[i-1]) {
			return fmt.Errorf("rows attention: bad row %d at index %d", r, i)
		}
	}
	return nil
}

// forwardRef is the forward as plain loops over every key of every
// listed row.
func (a rowsAttention) forwardRef(qkv []float32, rows []int32, out, att []float32) {
	C, T, hd := a.c, a.seqLen, a.hd()
	scale := float32(1 / math.Sqrt(float64(hd)))
	clear(out)
	for k, i := range rows {
		base, t := int(i)/T*T, int(i)%T
		for h := range a.heads {
			q := qkv[int(i)*3*C+h*hd:][:hd]
			pr := a.pRow(att, k, h)
			for s := range t + 1 {
				pr[s] = dot(q, qkv[(base+s)*3*C+C+h*hd:][:hd]) * scale
			}
			softmaxPrefix(pr, t+1)
			o := out[k*C+h*hd:][:hd]
			for s := range t + 1 {
				v := qkv[(base+s)*3*C+2*C+h*hd:][:hd]
				for j := range hd {
					o[j] += pr[s] * v[j]
				}
			}
		}
	}
}

// backwardRef adds the listed rows' gradient into dqkv: with P the
// probabilities and dP[s] = dout·v_s, dA[s] = P[s]·(dP[s] − Σ P·dP)/√hd,
// dq = Σ dA[s]·k_s, dk_s += dA[s]·q, dv_s += P[s]·dout.
func (a rowsAttention) backwardRef(qkv []float32, rows []int32, att, dout, dqkv []float32) {
	C, T, hd := a.c, a.seqLen, a.hd()
	scale := float32(1 / math.Sqrt(float64(hd)))
	dp := make([]float32, T)
	for k, i := range rows {
		base, t := int(i)/T*T, int(i)%T
		for h := range a.heads {
			pr := a.pRow(att, k, h)
			do := dout[k*C+h*hd:][:hd]
			var sum float32
			for s := range t + 1 {
				dp[s] = dot(do, qkv[(base+s)*3*C+2*C+h*hd:][:hd])
				sum += pr[s] * dp[s]
			}
			q, dq := qkv[int(i)*3*C+h*hd:][:hd], dqkv[int(i)*3*C+h*hd:][:hd]
			for s := range t + 1 {
				da := pr[s] * (dp[s] - sum) * scale
				kr := (base + s) * 3 * C
				key := qkv[kr+C+h*hd:][:hd]
				dk, dv := dqkv[kr+C+h*hd:][:hd], dqkv[kr+2*C+h*hd:][:hd]
				for j := range hd {
					dq[j] += da * key[j]
					dk[j] += da * q[j]
					dv[j] += pr[s] * do[j]
				}
			}
		}
	}
}

// runs calls f for each sequence's listed rows, rows[k0:k1], whose first
// trunk row is base: one product per sequence, not per agent turn, as a
// few larger products cost less than the scores past each turn's own rows
// that they add (BenchmarkPPOUpdateHeadRows).
func (a rowsAttention) runs(rows []int32, f func(k0, k1, base int) error) error {
	T := a.seqLen
	for k0 := 0; k0 < len(rows); {
		b := int(rows[k0]) / T
		k1 := k0 + 1
		for k1 < len(rows) && int(rows[k1])/T == b {
			k1++
		}
		if err := f(k0, k1, b*T); err != nil {
			return err
		}
		k0 = k1
	}
	return nil
}

// gatherQueries copies head h's queries of rows into q (len(rows)·hd).
func (a rowsAttention) gatherQueries(qkv []float32, rows []int32, h int, q []float32) {
	C, hd := a.c, a.hd()
	for r, i := range rows {
		copy(q[r*hd:(r+1)*hd], qkv[int(i)*3*C+h*hd:])
	}
}

// eachHead runs f(h, scratch of head h) for every head, in parallel
// (kernels.ParallelParts): the heads write disjoint columns of out, dqkv
// and their own probabilities, so the result does not depend on who runs
// which. It returns the first head's error.
func (a rowsAttention) eachHead(scratch []float32, per int, f func(h int, scratch []float32) error) error {
	errs := make([]error, a.heads)
	kernels.ParallelParts(a.heads, kernels.PartFunc(func(h int) {
		errs[h] = f(h, scratch[h*per:][:per])
	}))
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// forwardScratchLen is forward's scratch: per head the gathered queries.
func (a rowsAttention) forwardScratchLen() int { return a.heads * a.seqLen * a.hd() }

// forward is forwardRef with the products as matrix products per
// sequence and head, the heads in parallel; scratch holds
// forwardScratchLen() values.
func (a rowsAttention) forward(qkv []float32, rows []int32, out, att, scratch []float32) error {
	if err := a.check(rows); err != nil {
		return err
	}
	C, T, hd, H := a.c, a.seqLen, a.hd(), a.heads
	scale := float32(1 / math.Sqrt(float64(hd)))
	clear(out[len(rows)*C:])
	return a.eachHead(scratch, T*hd, func(h int, scratch []float32) error {
		return a.runs(rows, func(k0, k1, base int) error {
			m, n := k1-k0, int(rows[k1-1])-base+1
			q := scratch[:m*hd]
			a.gatherQueries(qkv, rows[k0:k1], h, q)
			p := att[(k0*H+h)*T:]
			if err := kernels.Sgemm(false, true, m, n, hd, 1, q, hd, qkv[base*3*C+C+h*hd:], 3*C, 0, p, H*T); err != nil {
				return err
			}
			for r := range m {
				t := int(rows[k0+r]) - base
				pr := p[r*H*T:][:n]
				if err := kernels.SoftmaxRow(pr[:t+1], scale, pr); err != nil {
					return err
				}
				clear(pr[t+1:])
			}
			return kernels.Sgemm(false, false, m, hd, n, 1, p, H*T, qkv[base*3*C+2*C+h*hd:], 3*C, 0, out[k0*C+h*hd:], C)
		})
	})
}

// scratchLen is backward's scratch: per head the gathered queries (T·hd),
// their gradient (T·hd) and dA (T·T).
func (a rowsAttention) scratchLen() int { return a.heads * a.headScratch() }

func (a rowsAttention) headScratch() int { return 2*a.seqLen*a.hd() + a.seqLen*a.seqLen }

// backward is backwardRef with the products as matrix products per
// sequence and head, the heads in parallel: dP = dO·Vᵀ, dQ = dA·K,
// dK += dAᵀ·Q, dV += Pᵀ·dO. scratch holds scratchLen() values.
func (a rowsAttention) backward(qkv []float32, rows []int32, att, dout, dqkv, scratch []float32) error {
	if err := a.check(rows); err != nil {
		return err
	}
	C, T, hd, H := a.c, a.seqLen, a.hd(), a.heads
	scale64 := 1 / math.Sqrt(float64(hd))
	return a.eachHead(scratch, a.headScratch(), func(h int, scratch []float32) error {
		return a.runs(rows, func(k0, k1, base int) error {
			m, n := k1-k0, int(rows[k1-1])-base+1
			q, dq, da := scratch[:m*hd], scratch[T*hd:][:m*hd], scratch[2*T*hd:][:m*n]
			p := att[(k0*H+h)*T:]
			do := dout[k0*C+h*hd:]
			if err := kernels.Sgemm(false, true, m, n, hd, 1, do, C, qkv[base*3*C+2*C+h*hd:], 3*C, 0, da, n); err != nil {
				return err
			}
			for r := range m {
				t := int(rows[k0+r]) - base
				dr := da[r*n:][:n]
				if err := kernels.SoftmaxGradRow(p[r*H*T:][:t+1], dr[:t+1], scale64, dr[:t+1]); err != nil {
					return err
				}
				clear(dr[t+1:])
			}
			a.gatherQueries(qkv, rows[k0:k1], h, q)
			for _, err := range []error{
				kernels.Sgemm(false, false, m, hd, n, 1, da, n, qkv[base*3*C+C+h*hd:], 3*C, 0, dq, hd),
				kernels.Sgemm(true, false, n, hd, m, 1, da, n, q, hd, 1, dqkv[base*3*C+C+h*hd:], 3*C),
				kernels.Sgemm(true, false, n, hd, m, 1, p, H*T, do, C, 1, dqkv[base*3*C+2*C+h*hd:], 3*C),
			} {
				if err != nil {
					return err
				}
			}
			for r, i := range rows[k0:k1] {
				dst := dqkv[int(i)*3*C+h*hd:][:hd]
				for j, g := range dq[r*hd : (r+1)*hd] {
					dst[j] += g
				}
			}
			return nil
		})
	})
}

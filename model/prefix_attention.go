package model

import (
	"math"

	"arew/kernels"
)

// The attention of a prefix graph (PrefixShape's row layout), forward and
// backward, for qkv (N, 3C) → out (N, C), C = heads·hd.
//
// Prompt p attends causally among its first lens[p] rows (the plain
// graph's kernel, one call per prompt at its own length; its other rows
// are padding, out 0). Row j of answer block a = p·Answers + g attends to
// keys s = 0 … lens[p]+j: prompt p's rows s < lens[p], then its own rows
// 0 … j. The probabilities are kept for the backward: att holds, per
// prompt, heads × Prompt² (the kernel's layout at Prompt), and attA, per
// group p and head h, the Answers·AnswerLen rows of its answers, each of
// keys() = Prompt + AnswerLen entries.
//
// answerAttention is the fast path: the products with the prompt's keys
// and values are matrix products over the whole group (kernels.Sgemm),
// the products within an answer's own block plain loops. answerAttentionRef
// and answerAttentionBackwardRef are the plain loops of the same sums,
// the reference the fast path is tested against
// (TestAnswerAttentionMatchesRef).

type prefixAttention struct {
	sh       PrefixShape
	c, heads int
}

func (a prefixAttention) hd() int   { return a.c / a.heads }
func (a prefixAttention) keys() int { return a.sh.Prompt + a.sh.AnswerLen }

// block is the number of answer rows of one group.
func (a prefixAttention) block() int { return a.sh.Answers * a.sh.AnswerLen }

// attLens are the lengths of the two probability buffers.
func (a prefixAttention) attLens() (prompt, answers int) {
	return a.sh.Groups * a.heads * a.sh.Prompt * a.sh.Prompt, a.sh.Groups * a.heads * a.block() * a.keys()
}

// pRow is the probability row of answer row r (0 ≤ r < block()) of group
// p, head h.
func (a prefixAttention) pRow(attA []float32, p, h, r int) []float32 {
	return attA[((p*a.heads+h)*a.block()+r)*a.keys():][:a.keys()]
}

// key is the trunk row of key s for a row of answer block b of group p
// whose prompt has n0 rows.
func (a prefixAttention) key(p, b, n0, s int) int {
	if s < n0 {
		return p*a.sh.Prompt + s
	}
	return a.sh.promptRows() + b*a.sh.AnswerLen + s - n0
}

// prompts runs the kernel on each prompt at its own length.
func (a prefixAttention) prompts(qkv []float32, lens []int32, out, att []float32) error {
	C, T := a.c, a.sh.Prompt
	for p := range a.sh.Groups {
		n0, base := int(lens[p]), p*T
		clear(out[(base+n0)*C : (base+T)*C])
		if n0 == 0 {
			continue
		}
		sh := kernels.AttentionShape{Batch: 1, SeqLen: n0, Channels: C, Heads: a.heads}
		if err := kernels.AttentionForward(qkv[base*3*C:(base+n0)*3*C], sh, out[base*C:(base+n0)*C], att[p*a.heads*T*T:][:sh.AttLen()]); err != nil {
			return err
		}
	}
	return nil
}

// promptsBackward writes the prompts' rows of dqkv from their own
// attention (padding rows 0).
func (a prefixAttention) promptsBackward(qkv []float32, lens []int32, att, dout, dqkv []float32) error {
	C, T := a.c, a.sh.Prompt
	for p := range a.sh.Groups {
		n0, base := int(lens[p]), p*T
		clear(dqkv[(base+n0)*3*C : (base+T)*3*C])
		if n0 == 0 {
			continue
		}
		sh := kernels.AttentionShape{Batch: 1, SeqLen: n0, Channels: C, Heads: a.heads}
		if err := kernels.AttentionBackward(qkv[base*3*C:(base+n0)*3*C], sh, att[p*a.heads*T*T:][:sh.AttLen()],
			dout[base*C:(base+n0)*C], dqkv[base*3*C:(base+n0)*3*C]); err != nil {
			return err
		}
	}
	return nil
}

// softmaxPrefix turns the first n scores of row into probabilities: the
// max subtracted, the float32 exp of the kernels (kernels.Exp), the
// normaliser summed in float64.
func softmaxPrefix(row []float32, n int) {
	row = row[:n]
	mx := float32(math.Inf(-1))
	for _, x := range row {
		mx = max(mx, x)
	}
	for s := range row {
		row[s] -= mx
	}
	kernels.Exp(row, row)
	sum := 0.0
	for _, e := range row {
		sum += float64(e)
	}
	inv := float32(1 / sum)
	for s := range row {
		row[s] *= inv
	}
}

func dot(x, y []float32) float32 {
	var s float32
	for i := range x {
		s += x[i] * y[i]
	}
	return s
}

// answerAttentionRef is the answers' forward as plain loops over every
// key of every row.
func (a prefixAttention) answerAttentionRef(qkv []float32, lens []int32, out, attA []float32) {
	C, hd, np := a.c, a.hd(), a.sh.promptRows()
	scale := float32(1 / math.Sqrt(float64(hd)))
	for p := range a.sh.Groups {
		n0 := int(lens[p])
		for h := range a.heads {
			for r := range a.block() {
				b, j := p*a.sh.Answers+r/a.sh.AnswerLen, r%a.sh.AnswerLen
				row := np + b*a.sh.AnswerLen + j
				q := qkv[row*3*C+h*hd:][:hd]
				pr := a.pRow(attA, p, h, r)
				n := n0 + j + 1
				for s := range n {
					pr[s] = dot(q, qkv[a.key(p, b, n0, s)*3*C+C+h*hd:][:hd]) * scale
				}
				softmaxPrefix(pr, n)
				o := out[row*C+h*hd:][:hd]
				clear(o)
				for s := range n {
					v := qkv[a.key(p, b, n0, s)*3*C+2*C+h*hd:][:hd]
					for i := range hd {
						o[i] += pr[s] * v[i]
					}
				}
			}
		}
	}
}

// answerAttentionBackwardRef adds the answers' share of dqkv (their own
// rows, which must start at 0, and the prompt rows they read): with P the
// probabilities and dP[s] = dout·v_s, dA[s] = P[s]·(dP[s] − Σ P·dP)/√hd,
// dq = Σ dA[s]·k_s, dk_s += dA[s]·q, dv_s += P[s]·dout.
func (a prefixAttention) answerAttentionBackwardRef(qkv []float32, lens []int32, attA, dout, dqkv []float32) {
	C, hd, np := a.c, a.hd(), a.sh.promptRows()
	scale := float32(1 / math.Sqrt(float64(hd)))
	dp := make([]float32, a.keys())
	for p := range a.sh.Groups {
		n0 := int(lens[p])
		for h := range a.heads {
			for r := range a.block() {
				b, j := p*a.sh.Answers+r/a.sh.AnswerLen, r%a.sh.AnswerLen
				row := np + b*a.sh.AnswerLen + j
				pr := a.pRow(attA, p, h, r)
				n := n0 + j + 1
				do := dout[row*C+h*hd:][:hd]
				var sum float32
				for s := range n {
					dp[s] = dot(do, qkv[a.key(p, b, n0, s)*3*C+2*C+h*hd:][:hd])
					sum += pr[s] * dp[s]
				}
				q, dq := qkv[row*3*C+h*hd:][:hd], dqkv[row*3*C+h*hd:][:hd]
				for s := range n {
					da := pr[s] * (dp[s] - sum) * scale
					kr := a.key(p, b, n0, s) * 3 * C
					k := qkv[kr+C+h*hd:][:hd]
					dk, dv := dqkv[kr+C+h*hd:][:hd], dqkv[kr+2*C+h*hd:][:hd]
					for i := range hd {
						dq[i] += da * k[i]
						dk[i] += da * q[i]
						dv[i] += pr[s] * do[i]
					}
				}
			}
		}
	}
}

// answerAttention is answerAttentionRef with the prompt-key products of a
// group's answer rows done as matrix products: scores = Q·K_pᵀ/√hd and
// out = P·V_p over the group's Answers·AnswerLen rows at once.
func (a prefixAttention) answerAttention(qkv []float32, lens []int32, out, attA []float32) error {
	C, hd, np, m, ld := a.c, a.hd(), a.sh.promptRows(), a.block(), a.keys()
	scale := float32(1 / math.Sqrt(float64(hd)))
	for p := range a.sh.Groups {
		n0, ra, rp := int(lens[p]), np+p*a.block(), p*a.sh.Prompt
		for h := range a.heads {
			att := attA[(p*a.heads+h)*m*ld:][:m*ld]
			if n0 > 0 {
				if err := kernels.Sgemm(false, true, m, n0, hd, scale, qkv[ra*3*C+h*hd:], 3*C, qkv[rp*3*C+C+h*hd:], 3*C, 0, att, ld); err != nil {
					return err
				}
			}
			for r := range m {
				b, j := p*a.sh.Answers+r/a.sh.AnswerLen, r%a.sh.AnswerLen
				q, pr := qkv[(ra+r)*3*C+h*hd:][:hd], att[r*ld:][:ld]
				for s := n0; s <= n0+j; s++ {
					pr[s] = dot(q, qkv[a.key(p, b, n0, s)*3*C+C+h*hd:][:hd]) * scale
				}
				softmaxPrefix(pr, n0+j+1)
			}
			if n0 > 0 {
				if err := kernels.Sgemm(false, false, m, hd, n0, 1, att, ld, qkv[rp*3*C+2*C+h*hd:], 3*C, 0, out[ra*C+h*hd:], C); err != nil {
					return err
				}
			} else {
				for r := range m {
					clear(out[(ra+r)*C+h*hd:][:hd])
				}
			}
			for r := range m {
				b, j := p*a.sh.Answers+r/a.sh.AnswerLen, r%a.sh.AnswerLen
				o, pr := out[(ra+r)*C+h*hd:][:hd], att[r*ld:]
				for s := n0; s <= n0+j; s++ {
					v := qkv[a.key(p, b, n0, s)*3*C+2*C+h*hd:][:hd]
					for i := range hd {
						o[i] += pr[s] * v[i]
					}
				}
			}
		}
	}
	return nil
}

// answerAttentionBackward is answerAttentionBackwardRef with the
// prompt-key products as matrix products over a group's answer rows:
// dP = dO·V_pᵀ, dQ += dA·K_p, dK_p += dAᵀ·Q, dV_p += Pᵀ·dO. scratch
// holds Answers·AnswerLen·keys() values.
func (a prefixAttention) answerAttentionBackward(qkv []float32, lens []int32, attA, dout, dqkv, scratch []float32) error {
	C, hd, np, m, ld := a.c, a.hd(), a.sh.promptRows(), a.block(), a.keys()
	scale := float32(1 / math.Sqrt(float64(hd)))
	for p := range a.sh.Groups {
		n0, ra, rp := int(lens[p]), np+p*a.block(), p*a.sh.Prompt
		for h := range a.heads {
			att, da := attA[(p*a.heads+h)*m*ld:][:m*ld], scratch[:m*ld]
			if n0 > 0 {
				if err := kernels.Sgemm(false, true, m, n0, hd, 1, dout[ra*C+h*hd:], C, qkv[rp*3*C+2*C+h*hd:], 3*C, 0, da, ld); err != nil {
					return err
				}
			}
			for r := range m {
				b, j := p*a.sh.Answers+r/a.sh.AnswerLen, r%a.sh.AnswerLen
				do, pr, dr := dout[(ra+r)*C+h*hd:][:hd], att[r*ld:], da[r*ld:]
				var sum float32
				for s := range n0 + j + 1 {
					if s >= n0 {
						dr[s] = dot(do, qkv[a.key(p, b, n0, s)*3*C+2*C+h*hd:][:hd])
					}
					sum += pr[s] * dr[s]
				}
				for s := range n0 + j + 1 {
					dr[s] = pr[s] * (dr[s] - sum) * scale
				}
			}
			if n0 > 0 {
				for _, err := range []error{
					kernels.Sgemm(false, false, m, hd, n0, 1, da, ld, qkv[rp*3*C+C+h*hd:], 3*C, 1, dqkv[ra*3*C+h*hd:], 3*C),
					kernels.Sgemm(true, false, n0, hd, m, 1, da, ld, qkv[ra*3*C+h*hd:], 3*C, 1, dqkv[rp*3*C+C+h*hd:], 3*C),
					kernels.Sgemm(true, false, n0, hd, m, 1, att, ld, dout[ra*C+h*hd:], C, 1, dqkv[rp*3*C+2*C+h*hd:], 3*C),
				} {
					if err != nil {
						return err
					}
				}
			}
			for r := range m {
				b, j := p*a.sh.Answers+r/a.sh.AnswerLen, r%a.sh.AnswerLen
				row := ra + r
				q, dq := qkv[row*3*C+h*hd:][:hd], dqkv[row*3*C+h*hd:][:hd]
				do, pr, dr := dout[row*C+h*hd:][:hd], att[r*ld:], da[r*ld:]
				for s := n0; s <= n0+j; s++ {
					kr := a.key(p, b, n0, s) * 3 * C
					k := qkv[kr+C+h*hd:][:hd]
					dk, dv := dqkv[kr+C+h*hd:][:hd], dqkv[kr+2*C+h*hd:][:hd]
					for i := range hd {
						dq[i] += dr[s] * k[i]
						dk[i] += dr[s] * q[i]
						dv[i] += pr[s] * do[i]
					}
				}
			}
		}
	}
	return nil
}

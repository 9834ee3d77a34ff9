package kernels

import (
	"fmt"
	"math"
)

// AttentionShape is the shape of a causal multi-head self-attention call:
// Batch sequences of SeqLen positions each, Channels = Heads·HeadSize.
//
// Layout (as llm.c's attention_forward): qkv is (Batch·SeqLen, 3·Channels),
// the output of the QKV linear layer, each row [q | k | v] and within each
// of q, k, v head h owning columns [h·HeadSize, (h+1)·HeadSize). out is
// (Batch·SeqLen, Channels) with the same per-head columns. att, the saved
// attention probabilities, is (Batch, Heads, SeqLen, SeqLen), of which only
// the lower triangle s ≤ t is written or read.
type AttentionShape struct {
	Batch, SeqLen, Channels, Heads int
}

// HeadSize is Channels/Heads.
func (s AttentionShape) HeadSize() int { return s.Channels / s.Heads }

// Validate reports a shape the kernels cannot run.
func (s AttentionShape) Validate() error {
	if s.Batch < 0 || s.SeqLen < 1 || s.Channels < 1 || s.Heads < 1 {
		return fmt.Errorf("attention: bad shape %+v (need Batch ≥ 0, SeqLen, Channels, Heads ≥ 1)", s)
	}
	if s.Channels%s.Heads != 0 {
		return fmt.Errorf("attention: %d heads do not divide %d channels", s.Heads, s.Channels)
	}
	return nil
}

// QKVLen, OutLen and AttLen are the lengths of the three buffers.
func (s AttentionShape) QKVLen() int { return s.Batch * s.SeqLen * 3 * s.Channels }
func (s AttentionShape) OutLen() int { return s.Batch * s.SeqLen * s.Channels }
func (s AttentionShape) AttLen() int { return s.Batch * s.Heads * s.SeqLen * s.SeqLen }

// AttentionForwardRef is the reference causal self-attention forward. For
// each sequence b, head h and position t, with hd = HeadSize:
//
//	a[t,s]   = q_t·k_s / √hd                         for s ≤ t only
//	att[t,s] = exp(a[t,s] − max_s' a[t,s']) / Σ_s'' exp(a[t,s''] − max)
//	out_t    = Σ_{s≤t} att[t,s]·v_s
//
// Positions s > t are never computed (no mask is materialised), which is
// also why right padding is harmless: a real token at t attends only to
// s ≤ t, all real, so padding after the sequence cannot change it (the
// padded positions' own outputs are garbage the loss must mask). The row
// max is subtracted before exp, so scores of ±1e4 are exact; a non-finite
// input (NaN, Inf) makes the rows that read it NaN: row t of head h when in
// q_t, rows t ≥ s when in k_s or v_s, of that sequence and head only.
// Everything is float64 here; att is rounded to float32 on store.
func AttentionForwardRef(qkv []float32, sh AttentionShape, out, att []float32) error {
	if err := checkAttention(sh, len(qkv), len(out), len(att), "out"); err != nil {
		return err
	}
	for b := 0; b < sh.Batch; b++ {
		for h := 0; h < sh.Heads; h++ {
			attentionForwardPairRef(qkv, sh, out, att, b, h)
		}
	}
	return nil
}

// AttentionBackwardRef is the reference backward: from the upstream
// gradient dout (Batch·SeqLen, Channels), qkv and the saved att, it writes
// dqkv (same layout as qkv, overwritten). With P = att and dP[t,s] =
// dout_t·v_s, the softmax backward is dA[t,s] = P[t,s]·(dP[t,s] − Σ_s'
// P[t,s']·dP[t,s']) and
//
//	dq_t = Σ_{s≤t} dA[t,s]·k_s / √hd
//	dk_s = Σ_{t≥s} dA[t,s]·q_t / √hd
//	dv_s = Σ_{t≥s} P[t,s]·dout_t
//
// (derived in engine/doc_ops.go), all accumulated in float64.
func AttentionBackwardRef(qkv []float32, sh AttentionShape, att, dout, dqkv []float32) error {
	if err := checkAttention(sh, len(qkv), len(dout), len(att), "dout"); err != nil {
		return err
	}
	if len(dqkv) < sh.QKVLen() {
		return fmt.Errorf("attention backward: dqkv has %d values, want %d", len(dqkv), sh.QKVLen())
	}
	for b := 0; b < sh.Batch; b++ {
		for h := 0; h < sh.Heads; h++ {
			attentionBackwardPairRef(qkv, sh, att, dout, dqkv, b, h)
		}
	}
	return nil
}

// attentionForwardPairRef is AttentionForwardRef for sequence b, head h.
func attentionForwardPairRef(qkv []float32, sh AttentionShape, out, att []float32, b, h int) {
	T, C, H, hd := sh.SeqLen, sh.Channels, sh.Heads, sh.HeadSize()
	scale := 1 / math.Sqrt(float64(hd))
	p := make([]float64, T)
	for t := 0; t < T; t++ {
		q := qkv[(b*T+t)*3*C+h*hd:][:hd]
		maxA := math.Inf(-1)
		for s := 0; s <= t; s++ {
			k := qkv[(b*T+s)*3*C+C+h*hd:][:hd]
			a := 0.0
			for i := range hd {
				a += float64(q[i]) * float64(k[i])
			}
			p[s] = a * scale
			maxA = math.Max(maxA, p[s])
		}
		sum := 0.0
		for s := 0; s <= t; s++ {
			p[s] = math.Exp(p[s] - maxA)
			sum += p[s]
		}
		row := att[((b*H+h)*T+t)*T:][:T]
		for s := 0; s <= t; s++ {
			p[s] /= sum
			row[s] = float32(p[s])
		}
		o := out[(b*T+t)*C+h*hd:][:hd]
		for i := range hd {
			acc := 0.0
			for s := 0; s <= t; s++ {
				acc += p[s] * float64(qkv[(b*T+s)*3*C+2*C+h*hd+i])
			}
			o[i] = float32(acc)
		}
	}
}

// attentionBackwardPairRef is AttentionBackwardRef for sequence b, head h.
func attentionBackwardPairRef(qkv []float32, sh AttentionShape, att, dout, dqkv []float32, b, h int) {
	T, C, H, hd := sh.SeqLen, sh.Channels, sh.Heads, sh.HeadSize()
	scale := 1 / math.Sqrt(float64(hd))
	dq := make([]float64, hd)
	dk := make([]float64, T*hd)
	dv := make([]float64, T*hd)
	dA := make([]float64, T)
	col := func(pos, part int) []float32 { return qkv[(b*T+pos)*3*C+part*C+h*hd:][:hd] }
	for t := 0; t < T; t++ {
		row := att[((b*H+h)*T+t)*T:][:T]
		do := dout[(b*T+t)*C+h*hd:][:hd]
		dot := 0.0
		for s := 0; s <= t; s++ {
			v := col(s, 2)
			dA[s] = 0
			for i := range hd {
				dA[s] += float64(do[i]) * float64(v[i])
			}
			dot += float64(row[s]) * dA[s]
		}
		clear(dq)
		q := col(t, 0)
		for s := 0; s <= t; s++ {
			P := float64(row[s])
			dA[s] = P * (dA[s] - dot)
			k := col(s, 1)
			for i := range hd {
				dq[i] += dA[s] * float64(k[i]) * scale
				dk[s*hd+i] += dA[s] * float64(q[i]) * scale
				dv[s*hd+i] += P * float64(do[i])
			}
		}
		for i, g := range dq {
			dqkv[(b*T+t)*3*C+h*hd+i] = float32(g)
		}
	}
	for s := 0; s < T; s++ {
		for i := range hd {
			dqkv[(b*T+s)*3*C+C+h*hd+i] = float32(dk[s*hd+i])
			dqkv[(b*T+s)*3*C+2*C+h*hd+i] = float32(dv[s*hd+i])
		}
	}
}

func checkAttention(sh AttentionShape, nqkv, nout, natt int, outName string) error {
	if err := sh.Validate(); err != nil {
		return err
	}
	if nqkv < sh.QKVLen() || nout < sh.OutLen() || natt < sh.AttLen() {
		return fmt.Errorf("attention: buffers too short for %+v: qkv %d (want %d), %s %d (want %d), att %d (want %d)",
			sh, nqkv, sh.QKVLen(), outName, nout, sh.OutLen(), natt, sh.AttLen())
	}
	return nil
}

package optim

import (
	"fmt"
	"math"
)

// gspoLogClamp bounds log s before exp (verl: clamp(max=10), upper only).
const gspoLogClamp = 10.0

// GSPOConfig holds the options of GSPO. Its clip range is on the
// sequence-level ratio, so it is small (the GSPO paper uses 3e-4 / 4e-4).
// The aggregation is always seq-mean-token-mean, as in verl; GlobalSeqs is
// its global sequence count (0: this call's own, see Agg).
type GSPOConfig struct {
	ClipLow, ClipHigh float64
	GlobalSeqs        float64
}

func (c GSPOConfig) validate() error {
	if !(c.ClipLow >= 0 && c.ClipLow < 1) {
		return fmt.Errorf("gspo: ClipLow must be in [0, 1), got %v", c.ClipLow)
	}
	if !(c.ClipHigh >= 0) || math.IsInf(c.ClipHigh, 0) {
		return fmt.Errorf("gspo: ClipHigh must be finite and ≥ 0, got %v", c.ClipHigh)
	}
	return nil
}

func (c GSPOConfig) agg() Agg { return Agg{Mode: SeqMeanTokenMean, GlobalSeqs: c.GlobalSeqs} }

// seqLogRatios returns κ_i = Σ_t m_t (logp_t − old_t) / max(n_i, 1) for
// each sequence, the log of GSPO's sequence ratio s_i (before the clamp).
func seqLogRatios(logp, oldLogp []float64, b Packed) (kappa []float64, n []int) {
	kappa = make([]float64, b.NumTrajectories())
	n = make([]int, b.NumTrajectories())
	for i := range kappa {
		s := 0.0
		for t := b.Offsets[i]; t < b.Offsets[i+1]; t++ {
			if b.Mask[t] == 1 {
				s += logp[t] - oldLogp[t]
				n[i]++
			}
		}
		kappa[i] = s / float64(max(n[i], 1))
	}
	return kappa, n
}

// GSPO is the GSPO loss in verl's token form. For sequence i with agent
// tokens T_i (n_i of them):
//
//	s_i     = exp(min(κ_i, 10)),  κ_i = (1/n_i) Σ_{t∈T_i} (logp_t − old_t)
//	s_{i,t} = sg[s_i] · π_t / sg[π_t]      (value s_i, ∂s_{i,t}/∂logp_t = s_i)
//	ℓ_{i,t} = max(−A_t s_{i,t}, −A_t clip(s_{i,t}, 1−ε_low, 1+ε_high))
//	Loss    = seq-mean-token-mean(ℓ)
//
// Each token's ratio carries the whole sequence's ratio but only its own
// token's gradient path; GSPOSequence is the sequence form it equals when A
// is constant over a sequence (TestGSPOTokenFormEqualsSequenceForm).
func GSPO(logp, oldLogp, adv []float64, b Packed, cfg GSPOConfig) (PolicyResult, error) {
	if err := cfg.validate(); err != nil {
		return PolicyResult{}, err
	}
	if err := checkLens(b, "gspo", []string{"logp", "oldLogp", "adv"}, logp, oldLogp, adv); err != nil {
		return PolicyResult{}, err
	}
	w, err := cfg.agg().Weights(b)
	if err != nil {
		return PolicyResult{}, fmt.Errorf("gspo: %w", err)
	}
	kappa, _ := seqLogRatios(logp, oldLogp, b)
	n := len(logp)
	loss := make([]float64, n)
	dl := make([]float64, n)
	clipped := make([]float64, n)
	negKL := make([]float64, n)
	for i := range kappa {
		// log s_{i,t} = logp_t − sg[logp_t] + sg[κ_i]; its clamp sees κ_i.
		ls, dls := clampGrad(kappa[i], math.Inf(-1), gspoLogClamp)
		s := math.Exp(ls)
		for t := b.Offsets[i]; t < b.Offsets[i+1]; t++ {
			if b.Mask[t] == 0 {
				continue
			}
			negKL[t] = -(logp[t] - oldLogp[t])
			ds := s * dls // ∂s_{i,t}/∂logp_t
			a := adv[t]
			sc, dsc := clampGrad(s, 1-cfg.ClipLow, 1+cfg.ClipHigh)
			l1, g1 := -a*s, -a*ds
			l2, g2 := -a*sc, -a*dsc*ds
			if l2 > l1 {
				clipped[t] = 1
			}
			loss[t], dl[t] = maxGrad(l1, g1, l2, g2)
		}
	}
	res := PolicyResult{
		Loss:     dotMasked(w, loss),
		DLogp:    make([]float64, n),
		ClipFrac: maskedMean(clipped, b.Mask),
		ApproxKL: maskedMean(negKL, b.Mask),
	}
	for t := range n {
		res.DLogp[t] = w[t] * dl[t]
	}
	return res, nil
}

// GSPOSequence is GSPO in its sequence form, the definition the token form
// must reproduce: one ratio and one advantage per sequence,
//
//	ℓ_i  = max(−A_i s_i, −A_i clip(s_i, 1−ε_low, 1+ε_high))
//	Loss = (1/B') Σ_i ℓ_i                     (B' sequences with n_i > 0)
//	∂Loss/∂logp_t = (1/B') · ∂ℓ_i/∂s_i · s_i / n_i   for t ∈ T_i
//
// seqAdv has one advantage per sequence (B). ClipFrac here counts
// sequences, not tokens; ClipFracLower is 0.
func GSPOSequence(logp, oldLogp, seqAdv []float64, b Packed, cfg GSPOConfig) (PolicyResult, error) {
	if err := cfg.validate(); err != nil {
		return PolicyResult{}, err
	}
	if err := checkLens(b, "gspo sequence", []string{"logp", "oldLogp"}, logp, oldLogp); err != nil {
		return PolicyResult{}, err
	}
	if len(seqAdv) != b.NumTrajectories() {
		return PolicyResult{}, fmt.Errorf("gspo sequence: seqAdv has %d entries, want %d (one per sequence)", len(seqAdv), b.NumTrajectories())
	}
	kappa, cnt := seqLogRatios(logp, oldLogp, b)
	seqs := cfg.GlobalSeqs
	if seqs == 0 {
		seqs = float64(b.ActiveTrajectories())
	}
	res := PolicyResult{DLogp: make([]float64, len(logp))}
	active, clipped, negKL, toks := 0.0, 0.0, 0.0, 0.0
	for i, k := range kappa {
		if cnt[i] == 0 {
			continue
		}
		active++
		ls, dls := clampGrad(k, math.Inf(-1), gspoLogClamp)
		s := math.Exp(ls)
		a := seqAdv[i]
		sc, dsc := clampGrad(s, 1-cfg.ClipLow, 1+cfg.ClipHigh)
		l1, g1 := -a*s, -a
		l2, g2 := -a*sc, -a*dsc
		if l2 > l1 {
			clipped++
		}
		l, dlds := maxGrad(l1, g1, l2, g2)
		res.Loss += l / seqs
		g := dlds * s * dls / float64(cnt[i]) / seqs
		for t := b.Offsets[i]; t < b.Offsets[i+1]; t++ {
			if b.Mask[t] == 1 {
				res.DLogp[t] = g
				negKL -= logp[t] - oldLogp[t]
				toks++
			}
		}
	}
	res.ClipFrac = clipped / (active + seqMeanEps)
	res.ApproxKL = negKL / (toks + seqMeanEps)
	return res, nil
}

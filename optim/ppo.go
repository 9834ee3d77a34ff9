package optim

import (
	"fmt"
	"math"

	"arew/kernels"
)

// logRatioClamp bounds log(π/π_old) before exp, as verl does, so one
// stale token cannot overflow the ratio.
const logRatioClamp = 20.0

// PPOConfig holds the options of the clipped surrogate.
type PPOConfig struct {
	// ClipLow, ClipHigh: the ratio is clipped to [1−ClipLow, 1+ClipHigh]
	// (verl clip_ratio_low / clip_ratio_high; PPO's ε when equal).
	ClipLow, ClipHigh float64
	// DualClip is c > 1 of dual-clip PPO (verl clip_ratio_c): for A < 0 the
	// per-token loss is capped at −c·A. 0 turns dual clip off; verl always
	// applies it with c = 3 by default.
	DualClip float64
	Agg      Agg
}

func (c PPOConfig) validate() error {
	if !(c.ClipLow >= 0 && c.ClipLow < 1) {
		return fmt.Errorf("ppo: ClipLow must be in [0, 1), got %v", c.ClipLow)
	}
	if !(c.ClipHigh >= 0) || math.IsInf(c.ClipHigh, 0) {
		return fmt.Errorf("ppo: ClipHigh must be finite and ≥ 0, got %v", c.ClipHigh)
	}
	if c.DualClip != 0 && !(c.DualClip > 1) {
		return fmt.Errorf("ppo: DualClip must be 0 (off) or > 1, got %v", c.DualClip)
	}
	return nil
}

// PolicyResult is a policy loss, its gradient and verl's metrics.
type PolicyResult struct {
	Loss  float64
	DLogp []float64 // ∂Loss/∂logp_t (N); 0 on non-agent tokens
	// ClipFrac is the fraction of agent tokens whose clipped term was the
	// larger loss (verl actor/pg_clipfrac).
	ClipFrac float64
	// ClipFracLower is the fraction of agent tokens with A < 0 whose loss was
	// capped by dual clip (verl actor/pg_clipfrac_lower; 0 for GSPO).
	ClipFracLower float64
	// ApproxKL is the agent-token mean of −log(π/π_old), after the ±20
	// clamp for PPO (verl actor/ppo_kl).
	ApproxKL float64
}

// PPOClip is the PPO clipped surrogate over packed token log-probs:
//
//	r_t  = exp(clamp(logp_t − old_t, ±20))
//	ℓ1_t = max(−A_t r_t, −A_t clip(r_t, 1−ε_low, 1+ε_high))
//	ℓ_t  = min(ℓ1_t, −c A_t)   if A_t < 0 and dual clip is on, else ℓ1_t
//	Loss = aggregate(ℓ)
//
// logp, oldLogp, adv have one entry per token (N); only agent tokens count.
// The gradient follows torch's autograd conventions, so it matches verl's
// backward: clamp passes the gradient on its closed interval, and max/min
// split it evenly on exact ties (ratio 1 makes both branches of the first
// max tie, with equal derivatives).
func PPOClip(logp, oldLogp, adv []float64, b Packed, cfg PPOConfig) (PolicyResult, error) {
	return ppoClip(nil, logp, oldLogp, adv, b, cfg)
}

// ppoClip is PPOClip with its work slices and DLogp taken from s.
func ppoClip(s *scratch, logp, oldLogp, adv []float64, b Packed, cfg PPOConfig) (PolicyResult, error) {
	s.reset()
	if err := cfg.validate(); err != nil {
		return PolicyResult{}, err
	}
	if err := checkLens(b, "ppo", []string{"logp", "oldLogp", "adv"}, logp, oldLogp, adv); err != nil {
		return PolicyResult{}, err
	}
	w, err := cfg.Agg.weights(s, b)
	if err != nil {
		return PolicyResult{}, fmt.Errorf("ppo: %w", err)
	}
	n := len(logp)
	loss := s.zeros(n)
	dl := s.zeros(n) // ∂ℓ_t/∂logp_t
	clipped := s.zeros(n)
	lower := s.zeros(n)
	negKL := s.zeros(n)
	for t := range n {
		if b.Mask[t] == 0 {
			continue
		}
		d := logp[t] - oldLogp[t]
		lr, dlr := clampGrad(d, -logRatioClamp, logRatioClamp)
		negKL[t] = -lr
		r := math.Exp(lr)
		drdx := r * dlr // ∂r/∂logp
		a := adv[t]

		// First max: unclipped vs clipped term.
		rc, drc := clampGrad(r, 1-cfg.ClipLow, 1+cfg.ClipHigh)
		l1, g1 := -a*r, -a*drdx
		l2, g2 := -a*rc, -a*drc*drdx
		lc, gc := maxGrad(l1, g1, l2, g2)
		if l2 > l1 {
			clipped[t] = 1
		}
		// Dual clip for A < 0: cap at −c·A (a constant, zero gradient).
		if cfg.DualClip > 0 && a < 0 {
			l3 := -a * cfg.DualClip
			if lc > l3 {
				lower[t] = 1
			}
			lc, gc = minGrad(l3, 0, lc, gc)
		}
		loss[t], dl[t] = lc, gc
	}
	res := PolicyResult{
		Loss:          dotMasked(w, loss),
		DLogp:         s.zeros(n),
		ClipFrac:      maskedMean(clipped, b.Mask),
		ClipFracLower: maskedMean(lower, b.Mask),
		ApproxKL:      maskedMean(negKL, b.Mask),
	}
	for t := range n {
		res.DLogp[t] = w[t] * dl[t]
	}
	return res, nil
}

// clampGrad is clamp(x, lo, hi) and its derivative as torch defines it:
// 1 on the closed interval [lo, hi], 0 outside.
func clampGrad(x, lo, hi float64) (float64, float64) {
	switch {
	case x < lo:
		return lo, 0
	case x > hi:
		return hi, 0
	}
	return x, 1
}

// maxGrad is max(a, b) with its derivative; ties split evenly and NaN
// propagates (torch.maximum).
func maxGrad(a, da, b, db float64) (float64, float64) {
	switch {
	case math.IsNaN(a) || math.IsNaN(b):
		return math.NaN(), math.NaN()
	case a > b:
		return a, da
	case b > a:
		return b, db
	}
	return a, (da + db) / 2
}

// minGrad is min(a, b) with its derivative; ties split evenly (torch).
func minGrad(a, da, b, db float64) (float64, float64) {
	v, d := maxGrad(-a, -da, -b, -db)
	return -v, -d
}

// ValueConfig holds the options of the clipped value loss.
type ValueConfig struct {
	// ClipValue is ε_v (verl cliprange_value): the new prediction is also
	// scored clipped to [v_old − ε_v, v_old + ε_v]. +Inf turns clipping off.
	ClipValue float64
	Agg       Agg
}

// ValueResult is the value loss, its gradient and its clip fraction.
type ValueResult struct {
	Loss   float64
	DValue []float64 // ∂Loss/∂v_t (N); 0 on non-agent tokens
	// ClipFrac is the fraction of agent tokens where the clipped error was
	// the larger one (verl critic/vf_clipfrac).
	ClipFrac float64
}

// ValueLoss is PPO's clipped value loss (verl compute_value_loss):
//
//	v̄_t  = clip(v_t, old_t − ε_v, old_t + ε_v)
//	ℓ_t  = max((v_t − R_t)², (v̄_t − R_t)²)
//	Loss = ½ · aggregate(ℓ)
//
// values are the critic's current predictions, oldValues those at rollout,
// returns the targets R; one entry per token (N).
func ValueLoss(values, oldValues, returns []float64, b Packed, cfg ValueConfig) (ValueResult, error) {
	return valueLoss(nil, values, oldValues, returns, b, cfg)
}

// valueLoss is ValueLoss with its work slices and DValue taken from s.
func valueLoss(s *scratch, values, oldValues, returns []float64, b Packed, cfg ValueConfig) (ValueResult, error) {
	s.reset()
	if !(cfg.ClipValue >= 0) {
		return ValueResult{}, fmt.Errorf("value loss: ClipValue must be ≥ 0, got %v", cfg.ClipValue)
	}
	if err := checkLens(b, "value loss", []string{"values", "oldValues", "returns"}, values, oldValues, returns); err != nil {
		return ValueResult{}, err
	}
	w, err := cfg.Agg.weights(s, b)
	if err != nil {
		return ValueResult{}, fmt.Errorf("value loss: %w", err)
	}
	n := len(values)
	loss := s.zeros(n)
	dl := s.zeros(n)
	clipped := s.zeros(n)
	for t := range n {
		if b.Mask[t] == 0 {
			continue
		}
		v, r := values[t], returns[t]
		lo, hi := oldValues[t]-cfg.ClipValue, oldValues[t]+cfg.ClipValue
		vc, dvc := v, 1.0
		if !math.IsInf(cfg.ClipValue, 1) {
			vc, dvc = clampGrad(v, lo, hi)
		}
		l1, g1 := (v-r)*(v-r), 2*(v-r)
		l2, g2 := (vc-r)*(vc-r), 2*(vc-r)*dvc
		if l2 > l1 {
			clipped[t] = 1
		}
		loss[t], dl[t] = maxGrad(l1, g1, l2, g2)
	}
	res := ValueResult{
		Loss:     0.5 * dotMasked(w, loss),
		DValue:   s.zeros(n),
		ClipFrac: maskedMean(clipped, b.Mask),
	}
	for t := range n {
		res.DValue[t] = 0.5 * w[t] * dl[t]
	}
	return res, nil
}

// Packed is the batch layout shared with the advantage kernels: sequence i
// holds tokens [Offsets[i], Offsets[i+1]) of every per-token slice, and
// Mask[t] = 1 for the tokens the agent generated (the only ones a loss sees).
type Packed = kernels.Packed

// checkLens verifies the layout and that every per-token slice has N entries.
func checkLens(b Packed, what string, names []string, xs ...[]float64) error {
	if err := b.Validate(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	for k, x := range xs {
		if len(x) != len(b.Mask) {
			return fmt.Errorf("%s: %s has %d entries, want %d (one per token)", what, names[k], len(x), len(b.Mask))
		}
	}
	return nil
}

// AggMode names how a per-token loss matrix becomes one scalar; the names
// are verl's loss_agg_mode strings.
type AggMode string

const (
	// TokenMean: Σ_t m_t ℓ_t / T, T the agent-token count of the whole batch.
	TokenMean AggMode = "token-mean"
	// SeqMeanTokenSum: (1/B') Σ_i Σ_t m_t ℓ_t, B' the sequences with ≥1 agent token.
	SeqMeanTokenSum AggMode = "seq-mean-token-sum"
	// SeqMeanTokenMean: (1/B') Σ_i (Σ_t m_t ℓ_t)/(n_i + 1e-8).
	SeqMeanTokenMean AggMode = "seq-mean-token-mean"
	// SeqMeanTokenSumNorm (Dr.GRPO): Σ_i Σ_t m_t ℓ_t / C, C a constant.
	SeqMeanTokenSumNorm AggMode = "seq-mean-token-sum-norm"
)

// seqMeanEps is verl's guard in the per-sequence token mean: n_i + 1e-8.
const seqMeanEps = 1e-8

// Agg is a loss aggregation. The denominators that must not depend on how a
// batch is split into micro-batches are passed in:
//
//   - GlobalTokens (token-mean): the agent-token count of the whole batch
//     that the micro-batches' losses are summed over. 0 means "this call's
//     own count" (verl's batch_num_tokens=None), correct only when the call
//     sees the whole batch.
//   - GlobalSeqs (seq-mean-*): likewise, the number of sequences with at
//     least one agent token in the whole batch; 0 means this call's own.
//   - NormConst (seq-mean-token-sum-norm): Dr.GRPO's constant divisor,
//     typically the maximum response length; it must be > 0.
type Agg struct {
	Mode         AggMode
	GlobalTokens float64
	GlobalSeqs   float64
	NormConst    float64
}

func (a Agg) validate() error {
	switch a.Mode {
	case TokenMean, SeqMeanTokenSum, SeqMeanTokenMean:
	case SeqMeanTokenSumNorm:
		if !(a.NormConst > 0) || math.IsInf(a.NormConst, 0) {
			return fmt.Errorf("aggregation %s: NormConst must be a positive number, got %v", a.Mode, a.NormConst)
		}
	case "":
		return fmt.Errorf("aggregation mode not set")
	default:
		return fmt.Errorf("unknown aggregation mode %q", a.Mode)
	}
	if !(a.GlobalTokens >= 0) || !(a.GlobalSeqs >= 0) || math.IsInf(a.GlobalTokens, 0) || math.IsInf(a.GlobalSeqs, 0) {
		return fmt.Errorf("aggregation %s: global counts must be finite and ≥ 0, got tokens %v seqs %v", a.Mode, a.GlobalTokens, a.GlobalSeqs)
	}
	return nil
}

// Weights returns w (N) with Σ_t w_t ℓ_t equal to the aggregated loss, for
// any per-token loss ℓ: every mode is linear in ℓ. w_t = 0 off the mask, and
// w_t is the same for all agent tokens of one sequence (a fact the AREW
// equivalence relies on). The gradient of the aggregate w.r.t. ℓ_t is w_t.
//
// An empty denominator (no agent token at all) gives w = 0, so the loss is
// 0; verl would return NaN there (0/0).
func (a Agg) Weights(b Packed) ([]float64, error) { return a.weights(nil, b) }

// weights is Weights with w taken from s.
func (a Agg) weights(s *scratch, b Packed) ([]float64, error) {
	if err := a.validate(); err != nil {
		return nil, err
	}
	if err := b.Validate(); err != nil {
		return nil, fmt.Errorf("aggregation %s: %w", a.Mode, err)
	}
	w := s.zeros(len(b.Mask))
	seqs := a.GlobalSeqs
	if seqs == 0 {
		seqs = float64(b.ActiveTrajectories())
	}
	toks := a.GlobalTokens
	if toks == 0 {
		toks = float64(b.AgentTokens())
	}
	for i := 0; i < b.NumTrajectories(); i++ {
		n := b.TrajectoryAgentTokens(i)
		if n == 0 {
			continue
		}
		var wi float64
		switch a.Mode {
		case TokenMean:
			wi = 1 / toks
		case SeqMeanTokenSum:
			wi = 1 / seqs
		case SeqMeanTokenMean:
			wi = 1 / (float64(n) + seqMeanEps) / seqs
		case SeqMeanTokenSumNorm:
			wi = 1 / a.NormConst
		}
		for t := b.Offsets[i]; t < b.Offsets[i+1]; t++ {
			if b.Mask[t] == 1 {
				w[t] = wi
			}
		}
	}
	return w, nil
}

// Aggregate reduces a per-token loss ℓ (N) to a scalar with the given mode
// and returns it with its gradient w.r.t. ℓ (the weights). Sums are in
// float64.
func Aggregate(loss []float64, b Packed, a Agg) (float64, []float64, error) {
	if err := checkLens(b, "aggregate", []string{"loss"}, loss); err != nil {
		return 0, nil, err
	}
	w, err := a.Weights(b)
	if err != nil {
		return 0, nil, err
	}
	return dotMasked(w, loss), w, nil
}

// dotMasked is Σ_t w_t x_t over the tokens with w_t ≠ 0, so that NaN or Inf
// in masked-out entries does not leak into the sum (verl's masked_sum does
// the same with torch.where).
func dotMasked(w, x []float64) float64 {
	s := 0.0
	for t, wt := range w {
		if wt != 0 {
			s += wt * x[t]
		}
	}
	return s
}

// maskedMean is verl's masked_mean for metrics: Σ m x / (Σ m + 1e-8).
func maskedMean(x []float64, mask []uint8) float64 {
	s, n := 0.0, 0.0
	for t, m := range mask {
		if m == 1 {
			s += x[t]
			n++
		}
	}
	return s / (n + seqMeanEps)
}

// f64Into widens x to float64 for the float64 objectives, into y's memory
// when it is large enough.
func f64Into(y []float64, x []float32) []float64 {
	if cap(y) < len(x) {
		y = make([]float64, len(x))
	}
	y = y[:len(x)]
	for i, v := range x {
		y[i] = float64(v)
	}
	return y
}

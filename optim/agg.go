package optim

import (
	"fmt"
	"math"

	"arew/kernels"
)

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

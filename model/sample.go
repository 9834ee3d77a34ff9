package model

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// ErrNonFiniteLogits: the policy produced a NaN or ±Inf logit, which
// means its weights have diverged; no token can be sampled.
var ErrNonFiniteLogits = errors.New("non-finite logits")

// Sampler draws the next token from a row of logits z (V).
//
//	Greedy:       the argmax (lowest index on ties); draws nothing from the RNG
//	otherwise:    q(j) ∝ exp(z_j / Temperature) over the TopK largest logits
//	              (all V when TopK is 0; ties at the cut kept in index order),
//	              one rng.Float64() per draw (inverse CDF, summed in index order)
//
// Whatever the sampling rule, Sample returns in LogProb the log-probability
// of the token under the policy itself, log π(tok) = z_tok − log Σ_j exp(z_j)
// (temperature 1, no truncation), in float64: the quantity the training
// graph's Logp computes, so the PPO ratio π_new/π_old starts at 1 (up to
// float32 rounding of the logits). SampleLogProb is log q(tok) under the
// distribution actually sampled from (0 for greedy); the two differ only
// when Temperature ≠ 1 or TopK truncates, and then the rollouts are
// off-policy for π, which the PPO ratio does not correct.
//
// A Sampler keeps scratch space: use one per goroutine.
type Sampler struct {
	Temperature float64 // > 0 unless Greedy
	TopK        int     // ≥ 0; 0 keeps every token
	Greedy      bool

	order []int     // scratch: indices sorted by logit
	q     []float64 // scratch: unnormalised sampling weights
}

// Sampled is one draw.
type Sampled struct {
	Token         int32
	LogProb       float64 // log π(Token) at temperature 1 over all V tokens
	SampleLogProb float64 // log q(Token) under the sampling rule actually used
}

// Validate reports bad settings.
func (s *Sampler) Validate() error {
	if s.TopK < 0 {
		return fmt.Errorf("sampler: top-k must be ≥ 0, got %d", s.TopK)
	}
	if !s.Greedy && !(s.Temperature > 0 && !math.IsInf(s.Temperature, 1)) {
		return fmt.Errorf("sampler: temperature must be finite and > 0, got %v", s.Temperature)
	}
	return nil
}

// Sample draws one token from logits (V); rng may be nil when Greedy.
// Non-finite logits are an error (wrapping ErrNonFiniteLogits).
func (s *Sampler) Sample(rng *rand.Rand, logits []float32) (Sampled, error) {
	if err := s.Validate(); err != nil {
		return Sampled{}, err
	}
	v := len(logits)
	if v == 0 {
		return Sampled{}, fmt.Errorf("sampler: no logits")
	}
	best, mx := 0, math.Inf(-1)
	for j, z := range logits {
		zf := float64(z)
		if math.IsNaN(zf) || math.IsInf(zf, 0) {
			return Sampled{}, fmt.Errorf("sampler: logit %d is %v: %w", j, z, ErrNonFiniteLogits)
		}
		if zf > mx {
			best, mx = j, zf
		}
	}
	var sum float64
	for _, z := range logits {
		sum += math.Exp(float64(z) - mx)
	}
	lse := mx + math.Log(sum)
	if s.Greedy {
		return Sampled{Token: int32(best), LogProb: float64(logits[best]) - lse}, nil
	}
	if rng == nil {
		return Sampled{}, fmt.Errorf("sampler: sampling needs an RNG")
	}

	// The kept set: every index, or the TopK largest (stable: ties by index).
	s.order = s.order[:0]
	for j := range v {
		s.order = append(s.order, j)
	}
	if s.TopK > 0 && s.TopK < v {
		slices.SortStableFunc(s.order, func(a, b int) int {
			switch {
			case logits[a] > logits[b]:
				return -1
			case logits[a] < logits[b]:
				return 1
			}
			return 0
		})
		s.order = s.order[:s.TopK]
		slices.Sort(s.order)
	}
	if cap(s.q) < v {
		s.q = make([]float64, v)
	}
	q := s.q[:len(s.order)]
	var qsum float64
	for i, j := range s.order {
		q[i] = math.Exp((float64(logits[j]) - mx) / s.Temperature)
		qsum += q[i]
	}
	u := rng.Float64() * qsum
	pick, acc := -1, 0.0
	for i, w := range q {
		acc += w
		if w > 0 {
			pick = i // rounding can leave u ≥ the running sum: keep the last positive
		}
		if u < acc {
			break
		}
	}
	tok := s.order[pick]
	return Sampled{
		Token:         int32(tok),
		LogProb:       float64(logits[tok]) - lse,
		SampleLogProb: math.Log(q[pick] / qsum),
	}, nil
}

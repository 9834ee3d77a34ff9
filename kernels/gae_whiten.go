package kernels

import (
	"fmt"
	"math"
)

// whitenEps is added to the variance before the square root, as verl's
// masked_whiten does.
const whitenEps = 1e-8

// MaskedWhitenRef standardises x (T) in place over the agent tokens of the
// whole batch (verl's masked_whiten, shift_mean = true), with n agent tokens:
//
//	μ  = (1/n) Σ_agent x_t
//	σ² = (1/(n−1)) Σ_agent (x_t − μ)²        (unbiased, as verl's masked_var)
//	x_t ← (x_t − μ) / sqrt(σ² + 1e-8)         on agent tokens, 0 on the others
//
// Fewer than two agent tokens is an error (verl raises there too: the
// unbiased variance divides by n − 1). μ and σ² are float64 sums in two
// passes. It is a batch statistic: a NaN on any agent token makes every agent
// token NaN.
func MaskedWhitenRef(p Packed, x []float32) error {
	const k = "masked whiten"
	if err := p.Validate(); err != nil {
		return fmt.Errorf("%s: %w", k, err)
	}
	if err := p.checkTokens(k, "x", x); err != nil {
		return err
	}
	n := 0
	sum := 0.0
	for t, m := range p.Mask {
		if m == 1 {
			n++
			sum += float64(x[t])
		}
	}
	if n < 2 {
		return fmt.Errorf("%s: %d agent tokens in the batch, need at least 2 for an unbiased variance", k, n)
	}
	mean := sum / float64(n)
	ss := 0.0
	for t, m := range p.Mask {
		if m == 1 {
			d := float64(x[t]) - mean
			ss += d * d
		}
	}
	scale := 1 / math.Sqrt(ss/float64(n-1)+whitenEps)
	for t, m := range p.Mask {
		if m == 1 {
			x[t] = float32((float64(x[t]) - mean) * scale)
		} else {
			x[t] = 0
		}
	}
	return nil
}

// MaskedWhiten is MaskedWhitenRef. It has no fast path: three streaming passes
// over T floats cost about what GAE does (BenchmarkMaskedWhiten), and a
// parallel reduction would change the summation order, so the result would no
// longer be bit-identical to the reference for a gain of at most 2× here.
func MaskedWhiten(p Packed, x []float32) error { return MaskedWhitenRef(p, x) }

package optim

import "fmt"

// EntropyResult is the entropy bonus term, its gradient and the entropy.
type EntropyResult struct {
	Loss    float64   // −coef · H
	DEnt    []float64 // ∂Loss/∂ent_t (N); the fused log-prob op takes it from here
	Entropy float64   // H = aggregate(ent), verl actor/entropy
}

// EntropyBonus is the entropy term of the actor loss (verl: policy_loss −=
// entropy_coeff · agg_loss(entropy)):
//
//	H    = aggregate(ent)
//	Loss = −coef · H
//
// ent is the per-token entropy of the current policy (N), as the fused
// log-prob op outputs it; the gradient is w.r.t. that entropy, and the op's
// backward carries it on to the logits.
func EntropyBonus(ent []float64, b Packed, coef float64, agg Agg) (EntropyResult, error) {
	h, w, err := Aggregate(ent, b, agg)
	if err != nil {
		return EntropyResult{}, fmt.Errorf("entropy bonus: %w", err)
	}
	d := make([]float64, len(w))
	for t, wt := range w {
		d[t] = -coef * wt
	}
	return EntropyResult{Loss: -coef * h, DEnt: d, Entropy: h}, nil
}

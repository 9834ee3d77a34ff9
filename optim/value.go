package optim

import (
	"fmt"
	"math"
)

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

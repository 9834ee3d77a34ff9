package optim

import (
	"fmt"
	"math"
)

// KLEstimator names a per-token estimator of KL(π ‖ π_ref) from the sampled
// token's log-probs, with verl's kl_loss_type names (J. Schulman,
// "Approximating KL divergence", 2020). With x = logp − ref_logp:
type KLEstimator string

const (
	KLK1  KLEstimator = "kl"         // k1 = x (unbiased, high variance)
	KLAbs KLEstimator = "abs"        // |x|
	KLK2  KLEstimator = "mse"        // k2 = ½ x²
	KLK3  KLEstimator = "low_var_kl" // k3 = e^{−x} + x − 1, clamped as verl
)

// canonical maps verl's aliases k1, k2, k3 to the names above.
func (e KLEstimator) canonical() (KLEstimator, error) {
	switch e {
	case KLK1, "k1":
		return KLK1, nil
	case KLAbs:
		return KLAbs, nil
	case KLK2, "k2":
		return KLK2, nil
	case KLK3, "k3":
		return KLK3, nil
	}
	return "", fmt.Errorf("unknown KL estimator %q (want kl, abs, mse, low_var_kl or k1, k2, k3)", string(e))
}

// KL clamps of verl's low_var_kl: the log-ratio to ±20 before exp, the
// estimate to ±10 after.
const (
	klLogClamp = 20.0
	klOutClamp = 10.0
)

// KLToken is one estimator's per-token value and its derivative w.r.t.
// logp (ref_logp is frozen). For k3, with y = clamp(ref − logp, ±20):
//
//	k3 = clamp(e^y − y − 1, ±10),   ∂k3/∂logp = 1 − e^y  (0 where a clamp is active)
func KLToken(e KLEstimator, logp, refLogp float64) (float64, float64, error) {
	e, err := e.canonical()
	if err != nil {
		return 0, 0, err
	}
	x := logp - refLogp
	switch e {
	case KLK1:
		return x, 1, nil
	case KLAbs:
		s := 0.0 // torch: sign(0) = 0
		if x > 0 {
			s = 1
		} else if x < 0 {
			s = -1
		}
		return math.Abs(x), s, nil
	case KLK2:
		return 0.5 * x * x, x, nil
	default: // KLK3
		y, dy := clampGrad(-x, -klLogClamp, klLogClamp)
		ey := math.Exp(y)
		k, dk := clampGrad(ey-y-1, -klOutClamp, klOutClamp)
		return k, -dk * dy * (ey - 1), nil
	}
}

// KLConfig holds the options of the KL-to-reference loss.
type KLConfig struct {
	Estimator KLEstimator
	Coef      float64 // verl kl_loss_coef
	Agg       Agg
}

// KLResult is the KL loss, its gradient and the aggregated KL.
type KLResult struct {
	Loss  float64   // Coef · KL
	DLogp []float64 // ∂Loss/∂logp_t (N)
	KL    float64   // aggregate of the per-token estimate
}

// KLPenalty is the KL-to-reference loss of the actor (verl use_kl_loss):
//
//	KL   = aggregate(k(logp_t, ref_t))
//	Loss = Coef · KL
//
// logp and refLogp have one entry per token (N); refLogp comes from the
// frozen reference policy and gets no gradient.
func KLPenalty(logp, refLogp []float64, b Packed, cfg KLConfig) (KLResult, error) {
	if _, err := cfg.Estimator.canonical(); err != nil {
		return KLResult{}, fmt.Errorf("kl penalty: %w", err)
	}
	if err := checkLens(b, "kl penalty", []string{"logp", "refLogp"}, logp, refLogp); err != nil {
		return KLResult{}, err
	}
	w, err := cfg.Agg.Weights(b)
	if err != nil {
		return KLResult{}, fmt.Errorf("kl penalty: %w", err)
	}
	n := len(logp)
	k := make([]float64, n)
	res := KLResult{DLogp: make([]float64, n)}
	for t := range n {
		if b.Mask[t] == 0 {
			continue
		}
		kt, dk, _ := KLToken(cfg.Estimator, logp[t], refLogp[t])
		k[t] = kt
		res.DLogp[t] = cfg.Coef * w[t] * dk
	}
	res.KL = dotMasked(w, k)
	res.Loss = cfg.Coef * res.KL
	return res, nil
}

package optim

import (
	"errors"
	"fmt"
	"math"

	"arew/engine"
)

// ErrNonFiniteGrad is returned by ClipGradNorm when the global gradient norm
// is NaN or Inf. The gradients are then left untouched; the caller should
// skip the optimiser step and zero them (what verl does with a non-finite
// grad_norm).
var ErrNonFiniteGrad = errors.New("gradient norm is not finite")

// clipEps is PyTorch's guard in clip_grad_norm_: max_norm / (norm + 1e-6).
const clipEps = 1e-6

// GradNorm is the global L2 norm of all gradients, √(Σ_p Σ_i g²),
// accumulated in float64 (float32 squares overflow at |g| ≈ 1.8e19).
func GradNorm(params []*engine.Param) float64 {
	s := 0.0
	for _, p := range params {
		for _, g := range p.Grad {
			s += float64(g) * float64(g)
		}
	}
	return math.Sqrt(s)
}

// ClipGradNorm scales every gradient by min(1, maxNorm / (‖g‖ + 1e-6)),
// where ‖g‖ is the norm over all parameters together (PyTorch's
// clip_grad_norm_, as PPO implementations use it: one factor for the whole
// model keeps the update's direction, unlike element-wise clamping such as
// gorgonia's WithClip). It returns the norm before clipping.
//
// A non-finite norm returns that norm and ErrNonFiniteGrad, and changes
// nothing.
func ClipGradNorm(params []*engine.Param, maxNorm float64) (float64, error) {
	if !(maxNorm > 0) {
		return 0, fmt.Errorf("clip grad norm: maxNorm must be > 0, got %v", maxNorm)
	}
	norm := GradNorm(params)
	if math.IsNaN(norm) || math.IsInf(norm, 0) {
		return norm, ErrNonFiniteGrad
	}
	c := maxNorm / (norm + clipEps)
	if c >= 1 {
		return norm, nil
	}
	for _, p := range params {
		for i, g := range p.Grad {
			p.Grad[i] = float32(float64(g) * c)
		}
	}
	return norm, nil
}

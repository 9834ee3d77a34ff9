package optim

import (
	"errors"
	"fmt"
	"math"

	"arew/engine"
	"arew/kernels"
)

// AdamWConfig holds AdamW's hyper-parameters; the learning rate is given to
// each Step (it comes from a Schedule).
type AdamWConfig struct {
	Beta1, Beta2 float64 // moment decay rates, e.g. 0.9, 0.95 (nanoGPT) or 0.999
	Eps          float64 // added to √v̂, e.g. 1e-8
	WeightDecay  float64 // decoupled decay λ_wd, applied as p ← p·(1 − lr·λ_wd)
	// Decay says which parameters are decayed. nil means nanoGPT's rule:
	// parameters with ≥ 2 dimensions (matrices, embeddings) are, 1-D ones
	// (biases, LayerNorm gains) are not. See DecayMatrices.
	Decay func(p *engine.Param) bool
}

// DecayMatrices is the default decay mask: decay every parameter of two or
// more dimensions.
func DecayMatrices(p *engine.Param) bool { return len(p.Shape) >= 2 }

// AdamW is Adam with decoupled weight decay (Loshchilov & Hutter), in the
// form of PyTorch's torch.optim.AdamW. For each parameter p with gradient g
// at step k = 1, 2, …:
//
//	p ← p · (1 − lr·λ_wd)                  (decayed parameters only)
//	m ← β1·m + (1−β1)·g
//	v ← β2·v + (1−β2)·g²
//	p ← p − lr · (m / (1−β1^k)) / (√(v / (1−β2^k)) + ε)
//
// The arithmetic is done in float64 per element and stored in float32, by
// kernels.AdamWUpdate (AVX-512 or AVX2 where the CPU has it, bitwise its
// plain loop).
type AdamW struct {
	cfg    AdamWConfig
	params []*engine.Param
	decay  []bool
	m, v   [][]float32
	step   int
}

// NewAdamW prepares AdamW for params (their Grad is what Step reads).
func NewAdamW(params []*engine.Param, cfg AdamWConfig) (*AdamW, error) {
	if !(cfg.Beta1 >= 0 && cfg.Beta1 < 1) || !(cfg.Beta2 >= 0 && cfg.Beta2 < 1) {
		return nil, fmt.Errorf("adamw: betas must be in [0, 1), got %v, %v", cfg.Beta1, cfg.Beta2)
	}
	if !(cfg.Eps > 0) || !(cfg.WeightDecay >= 0) {
		return nil, fmt.Errorf("adamw: need eps > 0 and weight decay ≥ 0, got %v, %v", cfg.Eps, cfg.WeightDecay)
	}
	if cfg.Decay == nil {
		cfg.Decay = DecayMatrices
	}
	o := &AdamW{cfg: cfg, params: params}
	seen := map[string]bool{}
	for _, p := range params {
		if seen[p.Name] {
			return nil, fmt.Errorf("adamw: parameter %q listed twice", p.Name)
		}
		seen[p.Name] = true
		o.decay = append(o.decay, cfg.Decay(p))
		o.m = append(o.m, make([]float32, p.Size()))
		o.v = append(o.v, make([]float32, p.Size()))
	}
	return o, nil
}

// Steps is the number of updates taken so far.
func (o *AdamW) Steps() int { return o.step }

// Step applies one update with learning rate lr from every parameter's
// Grad. It does not look at the gradients' finiteness: clip first
// (ClipGradNorm) and skip the step when the norm is not finite.
func (o *AdamW) Step(lr float64) error {
	if !(lr >= 0) || math.IsInf(lr, 0) {
		return fmt.Errorf("adamw: learning rate must be finite and ≥ 0, got %v", lr)
	}
	o.step++
	b1, b2, eps := o.cfg.Beta1, o.cfg.Beta2, o.cfg.Eps
	bc1 := 1 - math.Pow(b1, float64(o.step))
	bc2 := 1 - math.Pow(b2, float64(o.step))
	for k, p := range o.params {
		s := kernels.AdamWStep{B1: b1, B2: b2, BC1: bc1, BC2: bc2, LR: lr, Eps: eps, Shrink: 1}
		if o.decay[k] {
			s.Shrink = 1 - lr*o.cfg.WeightDecay
		}
		if err := kernels.AdamWUpdate(s, p.Data(), p.Grad, o.m[k], o.v[k]); err != nil {
			return fmt.Errorf("adamw: parameter %q: %w", p.Name, err)
		}
	}
	return nil
}

// State names of the exported optimiser state: "adamw.m/<param>",
// "adamw.v/<param>" and the step count as a one-element "adamw.step"
// (exact in float32 up to 2^24 steps).
const (
	stateM    = "adamw.m/"
	stateV    = "adamw.v/"
	stateStep = "adamw.step"
)

// maxStateStep is the largest step count float32 holds exactly.
const maxStateStep = 1 << 24

// ExportState returns copies of the moments and the step count as named
// float32 slices, ready for a checkpoint.
func (o *AdamW) ExportState() (map[string][]float32, error) {
	if o.step > maxStateStep {
		return nil, fmt.Errorf("adamw: step %d does not fit a float32 exactly", o.step)
	}
	st := map[string][]float32{stateStep: {float32(o.step)}}
	for k, p := range o.params {
		st[stateM+p.Name] = append([]float32(nil), o.m[k]...)
		st[stateV+p.Name] = append([]float32(nil), o.v[k]...)
	}
	return st, nil
}

// ImportState restores a state written by ExportState for the same
// parameters. Every entry must be present with the right length, and no
// other entry may be; nothing changes on error.
func (o *AdamW) ImportState(st map[string][]float32) error {
	step, ok := st[stateStep]
	if !ok || len(step) != 1 || step[0] < 0 || step[0] != float32(math.Trunc(float64(step[0]))) {
		return fmt.Errorf("adamw: state has no valid %q", stateStep)
	}
	if want := 1 + 2*len(o.params); len(st) != want {
		return fmt.Errorf("adamw: state has %d entries, want %d", len(st), want)
	}
	for _, p := range o.params {
		for _, key := range []string{stateM + p.Name, stateV + p.Name} {
			if s, ok := st[key]; !ok || len(s) != p.Size() {
				return fmt.Errorf("adamw: state entry %q missing or not %d long", key, p.Size())
			}
		}
	}
	for k, p := range o.params {
		copy(o.m[k], st[stateM+p.Name])
		copy(o.v[k], st[stateV+p.Name])
	}
	o.step = int(step[0])
	return nil
}

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

// Schedule is a learning-rate schedule over update steps 0, 1, 2, …:
// a linear warm-up to Peak over the first Warmup steps, then either
// constant (Total = 0) or a cosine decay from Peak to Floor that reaches
// Floor at step Total and stays there:
//
//	lr(k) = Peak · (k+1)/Warmup                                   k < Warmup
//	lr(k) = Floor + ½(Peak − Floor)(1 + cos(π (k−Warmup)/(Total−Warmup)))   Warmup ≤ k < Total
//	lr(k) = Floor                                                 k ≥ Total (cosine)
//
// The warm-up's first step is Peak/Warmup, not 0, so no update is wasted.
type Schedule struct {
	Peak, Floor float64
	Warmup      int
	Total       int // 0: constant after warm-up; else the step where the cosine reaches Floor
}

// Validate checks the schedule.
func (s Schedule) Validate() error {
	if !(s.Peak >= 0) || math.IsInf(s.Peak, 0) || !(s.Floor >= 0) || s.Floor > s.Peak {
		return fmt.Errorf("schedule: need 0 ≤ Floor ≤ Peak < ∞, got floor %v peak %v", s.Floor, s.Peak)
	}
	if s.Warmup < 0 || s.Total < 0 {
		return fmt.Errorf("schedule: warm-up %d and total %d must be ≥ 0", s.Warmup, s.Total)
	}
	if s.Total > 0 && s.Total <= s.Warmup {
		return fmt.Errorf("schedule: cosine total %d must exceed warm-up %d", s.Total, s.Warmup)
	}
	return nil
}

// LR is the learning rate of step k (k ≥ 0). Call Validate once first.
func (s Schedule) LR(k int) float64 {
	switch {
	case k < s.Warmup:
		return s.Peak * float64(k+1) / float64(s.Warmup)
	case s.Total == 0:
		return s.Peak
	case k >= s.Total:
		return s.Floor
	}
	frac := float64(k-s.Warmup) / float64(s.Total-s.Warmup)
	return s.Floor + 0.5*(s.Peak-s.Floor)*(1+math.Cos(math.Pi*frac))
}

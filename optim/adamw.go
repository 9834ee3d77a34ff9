package optim

import (
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

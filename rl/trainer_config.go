package rl

import (
	"fmt"
	"math"

	"arew/optim"
)

// OptimConfig is one network's optimiser: AdamW, its learning-rate
// schedule (indexed by update for the RL trainers, by optimiser step for
// SFT) and global-norm gradient clipping.
type OptimConfig struct {
	LR     float64 `json:"lr"`     // peak learning rate
	MinLR  float64 `json:"min_lr"` // cosine floor
	Warmup int     `json:"warmup"` // linear warm-up length
	// Decay is where the cosine reaches MinLR; 0 keeps LR constant after
	// the warm-up.
	Decay       int     `json:"decay"`
	Beta1       float64 `json:"beta1"`
	Beta2       float64 `json:"beta2"`
	Eps         float64 `json:"eps"`
	WeightDecay float64 `json:"weight_decay"` // decoupled; matrices only
	MaxGradNorm float64 `json:"max_grad_norm"`
}

// DefaultOptim is verl's actor optimiser (betas 0.9/0.999, weight decay
// 0.01, clip 1.0, constant LR) at the given learning rate.
func DefaultOptim(lr float64) OptimConfig {
	return OptimConfig{LR: lr, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, WeightDecay: 0.01, MaxGradNorm: 1}
}

func (c OptimConfig) schedule() optim.Schedule {
	return optim.Schedule{Peak: c.LR, Floor: c.MinLR, Warmup: c.Warmup, Total: c.Decay}
}

// MaxRate is the largest learning rate or coefficient a config accepts:
// the largest finite float32. Each of them scales float32 weights, losses
// or gradients, so a larger one (1e300 is finite in float64) overflows to
// ±Inf on the first step and turns the weights NaN.
const MaxRate = math.MaxFloat32

// inFloat32 reports whether x is a number of at most MaxRate in magnitude.
func inFloat32(x float64) bool { return x >= -MaxRate && x <= MaxRate }

// Validate reports the first bad field.
func (c OptimConfig) Validate() error {
	if !(c.LR > 0) || !inFloat32(c.LR) {
		return fmt.Errorf("lr must be a positive number of at most %.3g (float32), got %v", MaxRate, c.LR)
	}
	if err := c.schedule().Validate(); err != nil {
		return err
	}
	if !(c.Beta1 >= 0 && c.Beta1 < 1) || !(c.Beta2 >= 0 && c.Beta2 < 1) {
		return fmt.Errorf("betas must lie in [0, 1), got %v, %v", c.Beta1, c.Beta2)
	}
	if !(c.Eps > 0) || !(c.WeightDecay >= 0) || !inFloat32(c.Eps) || !inFloat32(c.WeightDecay) {
		return fmt.Errorf("need 0 < eps ≤ %.3g and 0 ≤ weight_decay ≤ %.3g (float32), got %v, %v", MaxRate, MaxRate, c.Eps, c.WeightDecay)
	}
	if !(c.MaxGradNorm > 0) {
		return fmt.Errorf("max_grad_norm must be > 0, got %v", c.MaxGradNorm)
	}
	return nil
}

func (c OptimConfig) adamw() optim.AdamWConfig {
	return optim.AdamWConfig{Beta1: c.Beta1, Beta2: c.Beta2, Eps: c.Eps, WeightDecay: c.WeightDecay}
}

// PolicyConfig is the actor's half of an update, shared by PPO, GRPO and
// GSPO: K epochs over the rollout batch in minibatches, each minibatch one
// optimiser step on the objective
//
//	L = surrogate(logp; old, Â) − EntropyCoef·H + KLCoef·KL(π ‖ π_ref)
//
// where the surrogate is PPO's clipped ratio (PPO, GRPO) or GSPO's clipped
// sequence ratio.
type PolicyConfig struct {
	Epochs    int `json:"epochs"`
	MiniBatch int `json:"mini_batch"` // trajectories per minibatch (one graph run, one step)
	// ClipLow, ClipHigh: the ratio's clip range [1−low, 1+high].
	ClipLow  float64 `json:"clip_low"`
	ClipHigh float64 `json:"clip_high"`
	// DualClip is c > 1 of dual-clip PPO (0: off); unused by GSPO.
	DualClip float64 `json:"dual_clip"`
	// LossAgg is verl's loss_agg_mode for the surrogate, entropy and KL:
	// token-mean, seq-mean-token-sum, seq-mean-token-mean or
	// seq-mean-token-sum-norm (GSPO always uses seq-mean-token-mean).
	LossAgg optim.AggMode `json:"loss_agg"`
	// NormConst is seq-mean-token-sum-norm's constant; 0 means the graph's
	// sequence length.
	NormConst   float64 `json:"norm_const"`
	EntropyCoef float64 `json:"entropy_coef"`
	// KLCoef > 0 adds the KL to a frozen copy of the initial policy, with
	// KLEstimator (kl/k1, abs, mse/k2, low_var_kl/k3).
	KLCoef      float64           `json:"kl_coef"`
	KLEstimator optim.KLEstimator `json:"kl_estimator"`
	Optim       OptimConfig       `json:"optim"`
	// MaxSkipped optimiser steps in a row with a non-finite loss or
	// gradient end training with ErrDiverged; 0 means DefaultMaxSkipped.
	MaxSkipped int `json:"max_skipped"`
	// HeadRows builds the actor's and a separate critic's training graphs
	// as head-rows graphs (model.NewHeadRowsGraph): their last block and
	// heads at the agent predictions only, which the losses read (head_rows.go).
	// Off by default: it is not bitwise the plain graph, so a run with it
	// is another run. Not with a shared prompt (GRPOConfig.SharePrompt).
	HeadRows bool `json:"head_rows,omitempty"`
}

// DefaultPolicy is PPO's actor: 2 epochs of minibatches of 16, clip 0.2,
// verl's dual clip 3 and token-mean, no entropy bonus, no KL, lr 1e-4.
func DefaultPolicy() PolicyConfig {
	return PolicyConfig{Epochs: 2, MiniBatch: 16, ClipLow: 0.2, ClipHigh: 0.2, DualClip: 3,
		LossAgg: optim.TokenMean, KLEstimator: optim.KLK3, Optim: DefaultOptim(1e-4)}
}

// Validate reports the first bad field.
func (c PolicyConfig) Validate() error {
	if c.Epochs < 1 || c.MiniBatch < 1 {
		return fmt.Errorf("policy: epochs and mini_batch must be ≥ 1, got %d, %d", c.Epochs, c.MiniBatch)
	}
	if !(c.ClipLow >= 0 && c.ClipLow < 1) || !(c.ClipHigh >= 0) || !inFloat32(c.ClipHigh) {
		return fmt.Errorf("policy: need 0 ≤ clip_low < 1 and 0 ≤ clip_high ≤ %.3g (float32), got %v, %v", MaxRate, c.ClipLow, c.ClipHigh)
	}
	if c.DualClip != 0 && (!(c.DualClip > 1) || !inFloat32(c.DualClip)) {
		return fmt.Errorf("policy: dual_clip must be 0 (off) or in (1, %.3g], got %v", MaxRate, c.DualClip)
	}
	switch c.LossAgg {
	case optim.TokenMean, optim.SeqMeanTokenSum, optim.SeqMeanTokenMean, optim.SeqMeanTokenSumNorm:
	default:
		return fmt.Errorf("policy: loss_agg must be token-mean, seq-mean-token-sum, seq-mean-token-mean or seq-mean-token-sum-norm, got %q", c.LossAgg)
	}
	if !(c.NormConst >= 0) || !inFloat32(c.NormConst) {
		return fmt.Errorf("policy: norm_const must lie in [0, %.3g] (float32), got %v", MaxRate, c.NormConst)
	}
	if !(c.EntropyCoef >= 0) || !inFloat32(c.EntropyCoef) || !(c.KLCoef >= 0) || !inFloat32(c.KLCoef) {
		return fmt.Errorf("policy: entropy_coef and kl_coef must lie in [0, %.3g] (float32), got %v, %v", MaxRate, c.EntropyCoef, c.KLCoef)
	}
	if c.KLCoef > 0 {
		if _, _, err := optim.KLToken(c.KLEstimator, 0, 0); err != nil {
			return fmt.Errorf("policy: %w", err)
		}
	}
	if err := c.Optim.Validate(); err != nil {
		return fmt.Errorf("policy optimiser: %w", err)
	}
	if c.MaxSkipped < 0 {
		return fmt.Errorf("policy: max_skipped must be ≥ 0 (0: %d), got %d", DefaultMaxSkipped, c.MaxSkipped)
	}
	return nil
}

// agg is the aggregation of the actor's terms on a graph of sequence length T.
func (c PolicyConfig) agg(T int) optim.Agg {
	a := optim.Agg{Mode: c.LossAgg}
	if a.Mode == optim.SeqMeanTokenSumNorm {
		a.NormConst = c.NormConst
		if a.NormConst == 0 {
			a.NormConst = float64(T)
		}
	}
	return a
}

// CriticConfig is PPO's critic: a separate network of the policy's
// architecture with a value head only (verl's layout, the default), or a
// value head on the policy's own trunk.
type CriticConfig struct {
	// Mode: CriticSeparate (own network and optimiser) or CriticShared
	// (the policy's value head; its loss joins the actor's with ValueCoef,
	// and the actor's optimiser steps both).
	Mode CriticMode `json:"mode"`
	// ValueClip is ε_v of the clipped value loss (verl cliprange_value);
	// +Inf turns clipping off.
	ValueClip float64 `json:"value_clip"`
	// ValueCoef weighs the value loss in the shared mode.
	ValueCoef float64     `json:"value_coef"`
	Optim     OptimConfig `json:"optim"` // separate mode only
}

// CriticMode is where PPO's values come from, written by name.
type CriticMode string

// The critic modes.
const (
	CriticSeparate CriticMode = "separate" // a network of its own (verl's layout)
	CriticShared   CriticMode = "shared"   // a value head on the policy's trunk
)

// DefaultCritic is a separate critic with verl's value clip 0.5 and lr 1e-3.
func DefaultCritic() CriticConfig {
	return CriticConfig{Mode: CriticSeparate, ValueClip: 0.5, ValueCoef: 0.5, Optim: DefaultOptim(1e-3)}
}

// Validate reports the first bad field.
func (c CriticConfig) Validate() error {
	if !(c.ValueClip > 0) {
		return fmt.Errorf("critic: value_clip must be > 0 (+Inf: off), got %v", c.ValueClip)
	}
	switch c.Mode {
	case CriticSeparate:
		if err := c.Optim.Validate(); err != nil {
			return fmt.Errorf("critic optimiser: %w", err)
		}
	case CriticShared:
		if !(c.ValueCoef > 0) || !inFloat32(c.ValueCoef) {
			return fmt.Errorf("critic: value_coef must be a positive number of at most %.3g (float32), got %v", MaxRate, c.ValueCoef)
		}
	default:
		return fmt.Errorf("critic: mode must be separate or shared, got %q", c.Mode)
	}
	return nil
}

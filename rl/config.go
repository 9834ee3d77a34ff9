package rl

import (
	"fmt"
	"math"

	"arew/kernels"
	"arew/model"
	"arew/optim"
	"arew/tasks"
)

// Algo names an RL algorithm: PPO (a critic and GAE), GRPO (a group
// baseline, PPO's clipped token ratio) or GSPO (the group baseline and a
// clipped sequence ratio).
type Algo string

const (
	AlgoPPO  Algo = "ppo"
	AlgoGRPO Algo = "grpo"
	AlgoGSPO Algo = "gspo"
)

// ParseAlgo checks a name given by a user.
func ParseAlgo(s string) (Algo, error) {
	switch a := Algo(s); a {
	case AlgoPPO, AlgoGRPO, AlgoGSPO:
		return a, nil
	}
	return "", fmt.Errorf("algo must be ppo, grpo or gspo, got %q", s)
}

// Algorithm is the front door to the RL trainers: the algorithm named and
// its config, PPO's for ppo and GRPO's (whose Objective is the algo) for
// grpo and gspo. JSON tags name the fields of a run's config.json. Code
// that runs RL asks it, rather than which config is set, for the trainer
// (New) and the parts every algorithm has.
type Algorithm struct {
	Algo Algo        `json:"algo"`
	PPO  *PPOConfig  `json:"ppo,omitempty"`
	GRPO *GRPOConfig `json:"grpo,omitempty"`
}

// DefaultAlgorithm is algo with rl's defaults (DefaultPPOConfig,
// DefaultGRPOConfig, DefaultGSPOConfig).
func DefaultAlgorithm(algo Algo) Algorithm {
	a := Algorithm{Algo: algo}
	switch algo {
	case AlgoPPO:
		c := DefaultPPOConfig()
		a.PPO = &c
	case AlgoGRPO:
		c := DefaultGRPOConfig()
		a.GRPO = &c
	case AlgoGSPO:
		c := DefaultGSPOConfig()
		a.GRPO = &c
	}
	return a
}

// Normalise makes a self-consistent: the config of its algo exists (the
// defaults if not), the other is dropped, the seed is seed and GRPO's
// objective is the algo.
func (a *Algorithm) Normalise(seed uint64) error {
	if _, err := ParseAlgo(string(a.Algo)); err != nil {
		return err
	}
	if a.Algo == AlgoPPO {
		if a.PPO == nil {
			a.PPO = DefaultAlgorithm(AlgoPPO).PPO
		}
		a.GRPO = nil
		a.PPO.Seed = seed
		return nil
	}
	if a.GRPO == nil {
		a.GRPO = DefaultAlgorithm(a.Algo).GRPO
	}
	a.PPO = nil
	a.GRPO.Seed = seed
	a.GRPO.Objective = a.Algo
	return nil
}

// Validate checks the algo's config (after Normalise).
func (a Algorithm) Validate() error {
	if _, err := ParseAlgo(string(a.Algo)); err != nil {
		return err
	}
	switch {
	case a.Algo == AlgoPPO && a.PPO != nil && a.GRPO == nil:
		return a.PPO.Validate()
	case (a.Algo == AlgoGRPO || a.Algo == AlgoGSPO) && a.GRPO != nil && a.PPO == nil:
		if a.GRPO.Objective != a.Algo {
			return fmt.Errorf("%s: the objective is %q", a.Algo, a.GRPO.Objective)
		}
		return a.GRPO.Validate()
	}
	section := "grpo"
	if a.Algo == AlgoPPO {
		section = "ppo"
	}
	return fmt.Errorf("algo %s needs the %s section and no other", a.Algo, section)
}

// New builds the algorithm's trainer on task from policy (PPO's separate
// critic is fresh, from the run seed).
func (a Algorithm) New(task tasks.Task, policy *model.Model) (Trainer, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	if a.PPO != nil {
		return NewPPO(task, policy, nil, *a.PPO)
	}
	return NewGRPO(task, policy, *a.GRPO)
}

// Rollout is the rollout config.
func (a *Algorithm) Rollout() *RolloutConfig {
	if a.PPO != nil {
		return &a.PPO.Rollout
	}
	return &a.GRPO.Rollout
}

// Advantage is the advantage config.
func (a *Algorithm) Advantage() *AdvantageConfig {
	if a.PPO != nil {
		return &a.PPO.Advantage
	}
	return &a.GRPO.Advantage
}

// Policy is the actor's config.
func (a *Algorithm) Policy() *PolicyConfig {
	if a.PPO != nil {
		return &a.PPO.Policy
	}
	return &a.GRPO.Policy
}

// Instances is the number of train instances cycled through (0: fresh).
func (a *Algorithm) Instances() *int {
	if a.PPO != nil {
		return &a.PPO.Instances
	}
	return &a.GRPO.Instances
}

// EpisodesPerUpdate is the number of rollouts of one update, in float64
// (a hostile prompts × group may not fit an int).
func (a Algorithm) EpisodesPerUpdate() float64 {
	if a.PPO != nil {
		return float64(a.PPO.Episodes)
	}
	return float64(a.GRPO.Prompts) * float64(a.GRPO.GroupSize)
}

// MemoryEstimate is the estimate for one update (memory.go).
func (a Algorithm) MemoryEstimate(policy model.Config, maxLen int) float64 {
	if a.PPO != nil {
		return a.PPO.MemoryEstimate(policy, maxLen)
	}
	return a.GRPO.MemoryEstimate(policy, maxLen)
}

// SeparateCritic reports whether the algorithm trains a separate critic
// network (PPO's default), and SharedCritic whether the policy's own value
// head is the critic.
func (a Algorithm) SeparateCritic() bool { return a.PPO != nil && a.PPO.Critic.Mode == CriticSeparate }

// SharedCritic: see SeparateCritic.
func (a Algorithm) SharedCritic() bool { return a.PPO != nil && a.PPO.Critic.Mode == CriticShared }

// PPOConfig is one PPO run: each update plays Episodes train instances
// (one rollout each, as the paper's code), estimates advantages with GAE
// (then the AREW correction, if on) and trains the policy and the critic
// for Policy.Epochs epochs of minibatches. JSON tags name the fields of a
// run's config.json.
type PPOConfig struct {
	Seed     uint64 `json:"seed"`
	Episodes int    `json:"episodes"` // per update
	// Instances > 0 cycles through the first Instances train instances (a
	// fixed training set); 0 plays fresh instances every update.
	Instances int             `json:"instances"`
	Rollout   RolloutConfig   `json:"rollout"`
	Advantage AdvantageConfig `json:"advantage"`
	Policy    PolicyConfig    `json:"policy"`
	Critic    CriticConfig    `json:"critic"`
}

// DefaultPPOConfig is the paper's PPO at toy scale: 64 episodes per update
// sampled at temperature 1, GAE with γ = λ = 1 and verl's whitening, no
// AREW (set Advantage.AREW), the actor of DefaultPolicy (clip 0.2, dual
// clip 3, token-mean, 2 epochs of minibatches of 16, lr 1e-4, no entropy
// bonus, no KL) and a separate critic (DefaultCritic: value clip 0.5,
// lr 1e-3).
func DefaultPPOConfig() PPOConfig {
	return PPOConfig{
		Seed:     1,
		Episodes: 64,
		Rollout:  DefaultRolloutConfig(),
		Advantage: AdvantageConfig{Estimator: EstimatorGAE, Gamma: 1, Lambda: 1, Whiten: true, GroupEps: 1e-6,
			AREW: AREW{Critiques: CritiquesNone, Mode: kernels.MarginStep}},
		Policy: DefaultPolicy(),
		Critic: DefaultCritic(),
	}
}

// Validate reports the first bad field.
func (c PPOConfig) Validate() error {
	if c.Episodes < 1 || c.Instances < 0 {
		return fmt.Errorf("ppo: need episodes ≥ 1 and instances ≥ 0, got %d, %d", c.Episodes, c.Instances)
	}
	if c.Advantage.Estimator != EstimatorGAE {
		return fmt.Errorf("ppo: the advantage estimator must be gae (GRPO is its own trainer), got %q", c.Advantage.Estimator)
	}
	for _, v := range []interface{ Validate() error }{c.Rollout, c.Advantage, c.Policy, c.Critic} {
		if err := v.Validate(); err != nil {
			return fmt.Errorf("ppo: %w", err)
		}
	}
	if err := checkBounds(c.Rollout, c.Advantage); err != nil {
		return fmt.Errorf("ppo: %w", err)
	}
	return nil
}

// PPO trains a policy and a critic with PPO (+ AREW).
type PPO struct{ *trainer }

// NewPPO prepares PPO on task. critic is the separate critic (nil: a fresh
// one of the policy's architecture from the run seed; ignored with a
// shared critic, which is the policy's own value head). The policy's
// context must hold the rollouts' MaxLen.
func NewPPO(task tasks.Task, policy, critic *model.Model, cfg PPOConfig) (*PPO, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	crit := cfg.Critic
	t, err := newTrainer(task, policy, critic, trainerSpec{algo: AlgoPPO, seed: cfg.Seed, prompts: cfg.Episodes, group: 1,
		instances: cfg.Instances, rollout: cfg.Rollout, adv: cfg.Advantage, policy: cfg.Policy, critic: &crit})
	if err != nil {
		return nil, err
	}
	return &PPO{t}, nil
}

// GRPOConfig is one GRPO or GSPO run: each update plays GroupSize
// rollouts of each of Prompts train instances; a trajectory's advantage is
// its reward against its group's (GRPO: (r − mean)/(std + ε); Dr.GRPO:
// r − mean), then the AREW correction if on; there is no critic. The
// objective is PPO's clipped token ratio ("grpo") or GSPO's clipped
// sequence ratio ("gspo", with its small clip range).
type GRPOConfig struct {
	Seed      uint64          `json:"seed"`
	Prompts   int             `json:"prompts"`    // instances per update
	GroupSize int             `json:"group_size"` // rollouts per instance, G
	Instances int             `json:"instances"`  // as PPOConfig.Instances
	Objective Algo            `json:"objective"`  // AlgoGRPO or AlgoGSPO
	Rollout   RolloutConfig   `json:"rollout"`
	Advantage AdvantageConfig `json:"advantage"` // estimator grpo or drgrpo
	Policy    PolicyConfig    `json:"policy"`
	// SharePrompt runs each group's prompt through the training graph once
	// and its G answers after it (prefix.go), instead of G copies of the
	// prompt: the same loss and gradients to float32 rounding. For tasks
	// whose answers are short next to their prompts (single-turn); it needs
	// the whole batch in one minibatch.
	SharePrompt bool `json:"share_prompt,omitempty"`
}

// DefaultGRPOConfig is GRPO as the paper's code runs it, at toy scale: 16
// prompts × G = 5 rollouts, the group mean/std baseline with verl's ε 1e-6,
// the clipped surrogate of DefaultPolicy, no KL.
func DefaultGRPOConfig() GRPOConfig {
	return GRPOConfig{
		Seed: 1, Prompts: 16, GroupSize: 5, Objective: AlgoGRPO,
		Rollout:   DefaultRolloutConfig(),
		Advantage: AdvantageConfig{Estimator: EstimatorGRPO, GroupEps: 1e-6, AREW: AREW{Critiques: CritiquesNone, Mode: kernels.MarginStep}},
		Policy:    DefaultPolicy(),
	}
}

// DefaultGSPOConfig is DefaultGRPOConfig with GSPO's objective: the
// sequence ratio clipped to [1 − 3e-4, 1 + 4e-4] (the paper's code),
// seq-mean-token-mean for the other terms, no dual clip, no KL.
func DefaultGSPOConfig() GRPOConfig {
	c := DefaultGRPOConfig()
	c.Objective = AlgoGSPO
	c.Policy.ClipLow, c.Policy.ClipHigh, c.Policy.DualClip = 3e-4, 4e-4, 0
	c.Policy.LossAgg = optim.SeqMeanTokenMean
	return c
}

// Validate reports the first bad field.
func (c GRPOConfig) Validate() error {
	if c.Prompts < 1 || c.GroupSize < 1 || c.Instances < 0 {
		return fmt.Errorf("grpo: need prompts ≥ 1, group_size ≥ 1, instances ≥ 0, got %d, %d, %d", c.Prompts, c.GroupSize, c.Instances)
	}
	if c.Objective != AlgoGRPO && c.Objective != AlgoGSPO {
		return fmt.Errorf("grpo: objective must be grpo or gspo, got %q", c.Objective)
	}
	if c.Advantage.Estimator != EstimatorGRPO && c.Advantage.Estimator != EstimatorDrGRPO {
		return fmt.Errorf("grpo: the advantage estimator must be grpo or drgrpo (no critic), got %q", c.Advantage.Estimator)
	}
	for _, v := range []interface{ Validate() error }{c.Rollout, c.Advantage, c.Policy} {
		if err := v.Validate(); err != nil {
			return fmt.Errorf("%s: %w", c.Objective, err)
		}
	}
	if err := checkBounds(c.Rollout, c.Advantage); err != nil {
		return fmt.Errorf("%s: %w", c.Objective, err)
	}
	if c.SharePrompt && c.Policy.MiniBatch < c.Prompts*c.GroupSize {
		return fmt.Errorf("%s: share_prompt needs the whole batch in one minibatch (mini_batch ≥ prompts × group_size = %d), got %d",
			c.Objective, c.Prompts*c.GroupSize, c.Policy.MiniBatch)
	}
	return nil
}

// GRPO trains a policy with GRPO or GSPO (+ AREW).
type GRPO struct{ *trainer }

// NewGRPO prepares GRPO or GSPO (cfg.Objective) on task.
func NewGRPO(task tasks.Task, policy *model.Model, cfg GRPOConfig) (*GRPO, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	t, err := newTrainer(task, policy, nil, trainerSpec{algo: cfg.Objective, seed: cfg.Seed, prompts: cfg.Prompts,
		group: cfg.GroupSize, instances: cfg.Instances, rollout: cfg.Rollout, adv: cfg.Advantage, policy: cfg.Policy,
		sharePrompt: cfg.SharePrompt})
	if err != nil {
		return nil, err
	}
	return &GRPO{t}, nil
}

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

// SamplerConfig is how the policy picks its tokens during a rollout: with
// temperature and optional top-k (the paper trains at temperature 1.0), or
// greedily (evaluation). Whatever the rule, the recorded log-prob is log π
// at temperature 1 (model.Sampler), the PPO ratio's denominator.
type SamplerConfig struct {
	Temperature float64 `json:"temperature"` // > 0 unless greedy; default 1
	TopK        int     `json:"top_k"`       // 0 keeps every token
	Greedy      bool    `json:"greedy"`
}

func (s SamplerConfig) sampler() *model.Sampler {
	return &model.Sampler{Temperature: s.Temperature, TopK: s.TopK, Greedy: s.Greedy}
}

// RolloutConfig configures the rollout workers.
type RolloutConfig struct {
	// Workers is the number of goroutines playing episodes, each with its
	// own KV-cache decoder; 0 means GOMAXPROCS. Results do not depend on it.
	Workers int `json:"workers"`
	// Slots is how many episodes one worker advances in lockstep: each
	// decoder call feeds the pending tokens of all of them as one batch.
	Slots int `json:"slots"`
	// MaxLen caps an episode's token stream (prompt, agent turns,
	// observations); 0 means min(task.MaxTokens(), model context). An
	// episode that would pass it is truncated: see Roller.Play.
	MaxLen  int           `json:"max_len"`
	Sampler SamplerConfig `json:"sampler"`
}

// DefaultRolloutConfig samples at temperature 1 with 16 lockstep episodes
// per worker and one worker per CPU.
func DefaultRolloutConfig() RolloutConfig {
	return RolloutConfig{Slots: 16, Sampler: SamplerConfig{Temperature: 1}}
}

// Validate reports the first bad field.
func (c RolloutConfig) Validate() error {
	if c.Workers < 0 {
		return fmt.Errorf("rollout: workers must be ≥ 0 (0 = one per CPU), got %d", c.Workers)
	}
	if c.Slots < 1 {
		return fmt.Errorf("rollout: slots must be ≥ 1, got %d", c.Slots)
	}
	if c.MaxLen < 0 {
		return fmt.Errorf("rollout: max_len must be ≥ 0 (0 = the task's bound), got %d", c.MaxLen)
	}
	if err := c.Sampler.sampler().Validate(); err != nil {
		return fmt.Errorf("rollout: %w", err)
	}
	return nil
}

package rl

import (
	"fmt"

	"arew/kernels"
	"arew/model"
	"arew/optim"
	"arew/tasks"
)

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
	Objective string          `json:"objective"`  // grpo or gspo
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
		Seed: 1, Prompts: 16, GroupSize: 5, Objective: "grpo",
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
	c.Objective = "gspo"
	c.Policy.ClipLow, c.Policy.ClipHigh, c.Policy.DualClip = 3e-4, 4e-4, 0
	c.Policy.LossAgg = optim.SeqMeanTokenMean
	return c
}

// Validate reports the first bad field.
func (c GRPOConfig) Validate() error {
	if c.Prompts < 1 || c.GroupSize < 1 || c.Instances < 0 {
		return fmt.Errorf("grpo: need prompts ≥ 1, group_size ≥ 1, instances ≥ 0, got %d, %d, %d", c.Prompts, c.GroupSize, c.Instances)
	}
	if c.Objective != "grpo" && c.Objective != "gspo" {
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
	objective := "ppo"
	if cfg.Objective == "gspo" {
		objective = "gspo"
	}
	t, err := newTrainer(task, policy, nil, trainerSpec{algo: cfg.Objective, seed: cfg.Seed, prompts: cfg.Prompts,
		group: cfg.GroupSize, instances: cfg.Instances, rollout: cfg.Rollout, adv: cfg.Advantage, policy: cfg.Policy,
		objective: objective, sharePrompt: cfg.SharePrompt})
	if err != nil {
		return nil, err
	}
	return &GRPO{t}, nil
}

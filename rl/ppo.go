package rl

import (
	"fmt"

	"arew/kernels"
	"arew/model"
	"arew/tasks"
)

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
	if c.Advantage.Estimator != "gae" {
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
	t, err := newTrainer(task, policy, critic, trainerSpec{algo: "ppo", seed: cfg.Seed, prompts: cfg.Episodes, group: 1,
		instances: cfg.Instances, rollout: cfg.Rollout, adv: cfg.Advantage, policy: cfg.Policy, objective: "ppo", critic: &crit})
	if err != nil {
		return nil, err
	}
	return &PPO{t}, nil
}

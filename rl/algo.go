package rl

import (
	"fmt"

	"arew/model"
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
	a.GRPO.Objective = string(a.Algo)
	return nil
}

// Validate checks the algo's config (after Normalise).
func (a Algorithm) Validate() error {
	switch {
	case a.Algo == AlgoPPO && a.PPO != nil && a.GRPO == nil:
		return a.PPO.Validate()
	case (a.Algo == AlgoGRPO || a.Algo == AlgoGSPO) && a.GRPO != nil && a.PPO == nil:
		if a.GRPO.Objective != string(a.Algo) {
			return fmt.Errorf("%s: the objective is %q", a.Algo, a.GRPO.Objective)
		}
		return a.GRPO.Validate()
	}
	return fmt.Errorf("algo %q needs its config, and only its (normalise it)", a.Algo)
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
func (a Algorithm) SeparateCritic() bool { return a.PPO != nil && a.PPO.Critic.Mode == "separate" }

// SharedCritic: see SeparateCritic.
func (a Algorithm) SharedCritic() bool { return a.PPO != nil && a.PPO.Critic.Mode == "shared" }

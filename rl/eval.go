package rl

import (
	"fmt"

	"arew/model"
	"arew/tasks"
)

// EvalConfig is an evaluation: the first Episodes instances of Split played
// once each, greedily by default (the paper evaluates greedily), with the
// rollout machinery.
type EvalConfig struct {
	Split    tasks.Split   `json:"split"`
	Episodes int           `json:"episodes"`
	Seed     uint64        `json:"seed"` // for sampled evaluation
	Rollout  RolloutConfig `json:"rollout"`
}

// DefaultEvalConfig plays 100 validation instances greedily (the test
// split is for a study's final numbers; name it explicitly).
func DefaultEvalConfig() EvalConfig {
	r := DefaultRolloutConfig()
	r.Sampler = SamplerConfig{Greedy: true}
	return EvalConfig{Split: tasks.Val, Episodes: 100, Seed: 1, Rollout: r}
}

// EvalResult is the evaluation's summary and its trajectories.
type EvalResult struct {
	Summary      tasks.Summary
	Truncated    int
	Trajectories []*Trajectory
}

// Evaluate plays cfg.Episodes instances of cfg.Split with the policy and
// summarises their measures (tasks.Summarize). A sampled evaluation draws
// episode i from a stream of (Seed, i) distinct from every training
// rollout's.
func Evaluate(policy *model.Model, task tasks.Task, cfg EvalConfig) (EvalResult, error) {
	if cfg.Episodes < 1 {
		return EvalResult{}, fmt.Errorf("evaluate: episodes must be ≥ 1, got %d", cfg.Episodes)
	}
	r, err := NewRoller(policy, task, cfg.Rollout)
	if err != nil {
		return EvalResult{}, fmt.Errorf("evaluate: %w", err)
	}
	specs := make([]EpisodeSpec, cfg.Episodes)
	for i := range specs {
		specs[i] = EpisodeSpec{Split: cfg.Split, Index: i, Group: i}
	}
	trajs, st, err := r.Play(specs, deriveSeed(cfg.Seed, streamEval), 0)
	if err != nil {
		return EvalResult{}, fmt.Errorf("evaluate: %w", err)
	}
	ms := make([]tasks.Measures, len(trajs))
	for i, t := range trajs {
		ms[i] = t.Measures
	}
	return EvalResult{Summary: tasks.Summarize(ms), Truncated: st.Truncated, Trajectories: trajs}, nil
}

// EvalMode is how an evaluation decodes, written by name.
type EvalMode string

// The evaluation modes.
const (
	ModeGreedy  EvalMode = "greedy"  // the most likely token
	ModeSampled EvalMode = "sampled" // sampled at temperature 1
)

// BothModes is every evaluation mode, greedy first.
var BothModes = []EvalMode{ModeGreedy, ModeSampled}

// EvalModes lists the evaluation modes a config names: "greedy",
// "sampled" or "both" (greedy, then sampled).
func EvalModes(s string) ([]EvalMode, error) {
	switch m := EvalMode(s); m {
	case ModeGreedy, ModeSampled:
		return []EvalMode{m}, nil
	case "both":
		return BothModes, nil
	}
	return nil, fmt.Errorf("eval modes must be greedy, sampled or both, got %q", s)
}

// EvalSampler is the sampler of an evaluation mode: greedy, or sampling
// at temperature 1.
func EvalSampler(mode EvalMode) SamplerConfig {
	if mode == ModeGreedy {
		return SamplerConfig{Greedy: true}
	}
	return SamplerConfig{Temperature: 1}
}

package study

import (
	"encoding/json"

	"arew/rl"
	"arew/rl/run"
)

// Summary is <dir>/summary.json: per arm, per seed, the base and final
// evaluations and when sampled success first reached each threshold.
// It holds no wall times, so the same config gives the same file
// (TestStudyIsDeterministic).
type Summary struct {
	Name       string             `json:"name"`
	Task       string             `json:"task"`
	Algo       string             `json:"algo"`
	Updates    int                `json:"updates"`
	Episodes   int                `json:"eval_episodes"`
	Split      string             `json:"eval_split"`              // the in-training evaluations' split
	Test       int                `json:"test_episodes,omitempty"` // the final test evaluation's instances
	Modes      string             `json:"eval_modes"`              // greedy, sampled or both
	Thresholds []float64          `json:"thresholds"`
	Status     string             `json:"status"`    // running, complete, interrupted, failed
	ArmOrder   []string           `json:"arm_order"` // the arms in the config's order
	Arms       map[string]*ArmSum `json:"arms"`
	Baselines  []run.Baseline     `json:"baselines"` // scripted policies on the in-training evaluation's instances
	// TestBaselines are the scripted policies on the final test instances.
	TestBaselines []run.Baseline `json:"test_baselines,omitempty"`
}

// ArmSum is one arm: its AREW setting, what else it changes (Arm), and
// its runs in seed order.
type ArmSum struct {
	Family     string          `json:"family,omitempty"`
	AREW       rl.AREW         `json:"arew"`
	TaskConfig json.RawMessage `json:"task_config,omitempty"`
	PPO        json.RawMessage `json:"ppo,omitempty"`
	GRPO       json.RawMessage `json:"grpo,omitempty"`
	Runs       []RunSum        `json:"runs"`
}

// RunSum is one run (arm × seed). Final is null unless the run completed;
// UpdatesTo maps a threshold ("0.5") to the first evaluated update whose
// sampled success reached it, null if none did.
type RunSum struct {
	Seed      uint64          `json:"seed"`
	Status    string          `json:"status"` // complete or interrupted
	Done      int             `json:"updates_done"`
	Base      run.Modes       `json:"base"`
	Final     *run.Modes      `json:"final"`
	UpdatesTo map[string]*int `json:"updates_to"`
	Curve     []run.Point     `json:"curve"` // every evaluation, in update order
	// Test is the final evaluation on the test split (Eval.Test > 0).
	Test *run.Modes `json:"test,omitempty"`
}

// updatesTo is, for each threshold, the first update in curve whose
// sampled success is at least the threshold (nil: never).
func updatesTo(curve []run.Point, thresholds []float64) map[string]*int {
	out := make(map[string]*int, len(thresholds))
	for _, t := range thresholds {
		out[thresholdKey(t)] = nil
		for _, p := range curve {
			if p.Sampled != nil && float64(p.Sampled.Success) >= t {
				u := p.Update
				out[thresholdKey(t)] = &u
				break
			}
		}
	}
	return out
}

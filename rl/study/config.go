package study

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"strings"

	"arew/kernels"
	"arew/model"
	"arew/rl"
	"arew/rl/run"
	"arew/tasks"
)

// Config is a whole study: several arms (AREW settings) trained from one
// base policy with one shared RL configuration, each over the same seeds,
// and evaluated on the same test instances. It is what <dir>/study.json
// holds.
type Config struct {
	Name string `json:"name"`
	Task string `json:"task"`
	// TaskConfig holds the task's JSON overrides (tasks.New); null: the
	// task's documented defaults.
	TaskConfig json.RawMessage `json:"task_config,omitempty"`

	Base Base `json:"base"`

	Arms  []Arm    `json:"arms"`
	Seeds []uint64 `json:"seeds"`

	// Algorithm is algo (ppo, grpo or gspo) and its config, exactly one
	// of ppo and grpo (whose objective is the algo), as a run's. Its seed
	// and advantage.arew are overwritten by each run's seed and arm.
	rl.Algorithm
	Updates int `json:"updates"`

	Eval EvalConfig `json:"eval"`

	// Tuning marks a sweep whose report ranks the arms by the selection rule
	// (Summary.Ranking, docs/arew.md "Protocol").
	Tuning bool `json:"tuning,omitempty"`
	// Reference, if set, is the arm every other arm is compared with, seed
	// by seed, on the final test evaluation's sampled success; Margin is
	// the gap a seed must reach to count (Summary.Paired).
	Reference string  `json:"reference,omitempty"`
	Margin    float64 `json:"margin,omitempty"`
}

// Base is the policy every run starts from: exactly one of a checkpoint
// at Path (model.Save), a base this package ships (Shipped, a name of
// Bases; `go run ./cmd/train -build-base <name>` rebuilds it), or one
// built at the start of the study by rl.NewBase (Build), saved as
// <dir>/base.safetensors.
type Base struct {
	Path    string         `json:"path,omitempty"`
	Shipped string         `json:"shipped,omitempty"`
	Build   *rl.BaseConfig `json:"build,omitempty"`
}

// Arm is one AREW setting; vanilla is Critiques "none". An arm may also
// change the task and the RL recipe it trains with: TaskConfig is merged
// onto the study's task config key by key (the arm's value wins), e.g.
// {"Critiques": "mass"}; PPO or GRPO is decoded onto a copy of the study's
// section (named fields replace, nested objects field by field, as
// DecodeConfig), e.g. {"policy": {"optim": {"lr": 0.001}}}. A tuned
// vanilla and a critique ladder are arms of one study that way.
type Arm struct {
	Name string `json:"name"`
	// Family groups the arms of a tuning sweep among which the selection
	// rule picks one (e.g. one λ per critique rule); "": one family.
	Family     string          `json:"family,omitempty"`
	AREW       rl.AREW         `json:"arew"`
	TaskConfig json.RawMessage `json:"task_config,omitempty"`
	PPO        json.RawMessage `json:"ppo,omitempty"`
	GRPO       json.RawMessage `json:"grpo,omitempty"`
}

// StandardArms are the four arms of the paper's ablation, with margin
// weight lambda and margin mode: vanilla (no correction), arew (AS and BT
// critiques), arew-as (AS only) and arew-bt (BT only).
func StandardArms(lambda float64, mode kernels.MarginMode) []Arm {
	arm := func(name string, critiques rl.CritiqueSet) Arm {
		return Arm{Name: name, AREW: rl.AREW{Critiques: critiques, Lambda: lambda, Mode: mode}}
	}
	v := arm("vanilla", "none")
	v.AREW.Lambda = 0
	return []Arm{v, arm("arew", "as+bt"), arm("arew-as", "as"), arm("arew-bt", "bt")}
}

// EvalConfig is the evaluation of every run, a run's (run.EvalConfig:
// Episodes instances of Split at update 0, every Every updates and after
// the last, in each of Modes; Test > 0 adds the final numbers on the test
// split), which every tuning and selection rule reads; its TaskConfig and
// Baselines are the study's to set (Validate). Thresholds are the sampled
// success rates whose first crossing the summary records (updates_to).
type EvalConfig struct {
	run.EvalConfig
	Thresholds []float64 `json:"thresholds"`
}

// split is the in-training evaluation's split.
func (e EvalConfig) split() tasks.Split { return run.TrainingSplit(e.Split) }

// DefaultThresholds are the success rates of updates_to: 50% and 80%.
var DefaultThresholds = []float64{0.5, 0.8}

// Validate reports the first bad field; the task, the demonstrator and the
// base checkpoint are checked when the study starts, before any training.
func (c *Config) Validate() error {
	if err := run.ValidName("study name", c.Name); err != nil {
		return err
	}
	if c.Task == "" {
		return fmt.Errorf("study: task must be set")
	}
	if raw := bytes.TrimSpace(c.TaskConfig); len(raw) > 0 && !bytes.Equal(raw, []byte("null")) {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			return fmt.Errorf("study: task config must be a JSON object: %v", err)
		}
	}
	if err := c.Base.validate(); err != nil {
		return err
	}
	if len(c.Arms) == 0 {
		return fmt.Errorf("study: no arms")
	}
	seen := map[string]bool{}
	for _, a := range c.Arms {
		if err := run.ValidName("arm name", a.Name); err != nil {
			return err
		}
		if seen[a.Name] {
			return fmt.Errorf("study: arm %q appears twice", a.Name)
		}
		seen[a.Name] = true
		if _, err := mergeObjects(c.TaskConfig, a.TaskConfig); err != nil {
			return fmt.Errorf("study: arm %s: task_config: %w", a.Name, err)
		}
		if len(a.PPO) > 0 && c.PPO == nil || len(a.GRPO) > 0 && c.GRPO == nil {
			return fmt.Errorf("study: arm %s changes a section (ppo or grpo) the study's algo %s does not use", a.Name, c.Algo)
		}
	}
	if len(c.Seeds) == 0 {
		return fmt.Errorf("study: no seeds")
	}
	if s, ok := run.Repeated(c.Seeds); ok {
		return fmt.Errorf("study: seed %d appears twice", s)
	}
	if c.Updates < 1 {
		return fmt.Errorf("study: updates must be ≥ 1, got %d", c.Updates)
	}
	if err := c.Eval.validate(); err != nil {
		return err
	}
	if err := c.Algorithm.Validate(); err != nil {
		return fmt.Errorf("study: %w", err)
	}
	for _, a := range c.Arms {
		if _, err := c.runConfig(a, c.Seeds[0], "base.safetensors"); err != nil { // the base is checked when the study starts
			return fmt.Errorf("study: arm %s: %w", a.Name, err)
		}
	}
	if c.Reference != "" && !seen[c.Reference] {
		return fmt.Errorf("study: reference %q is not an arm", c.Reference)
	}
	if !(c.Margin >= 0 && c.Margin <= 1) {
		return fmt.Errorf("study: margin must lie in [0, 1], got %v", c.Margin)
	}
	return nil
}

// mergeObjects is base with over's keys set on it (both JSON objects, or
// empty); with over empty it is base, byte for byte.
func mergeObjects(base, over json.RawMessage) (json.RawMessage, error) {
	if isEmptyJSON(over) {
		return base, nil
	}
	m := map[string]json.RawMessage{}
	if !isEmptyJSON(base) {
		if err := json.Unmarshal(base, &m); err != nil {
			return nil, fmt.Errorf("must be a JSON object: %v", err)
		}
	}
	var o map[string]json.RawMessage
	if err := json.Unmarshal(over, &o); err != nil {
		return nil, fmt.Errorf("must be a JSON object: %v", err)
	}
	maps.Copy(m, o)
	return json.Marshal(m) // keys sorted: the same arms give the same bytes
}

func isEmptyJSON(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || bytes.Equal(raw, []byte("null"))
}

// patched is a deep copy of section (a *rl.PPOConfig or *rl.GRPOConfig,
// through JSON, whose float64s round-trip exactly) with patch decoded onto
// it as DecodeConfig decodes; with an empty patch it is section itself.
func patched[T any](section *T, patch json.RawMessage) (*T, error) {
	if isEmptyJSON(patch) {
		c := *section
		return &c, nil
	}
	data, err := json.Marshal(section)
	if err != nil {
		return nil, err
	}
	var c T
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, err
	}
	return &c, rl.DecodeStrict(patch, &c)
}

func (b Base) validate() error {
	n := 0
	for _, set := range []bool{b.Path != "", b.Shipped != "", b.Build != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return fmt.Errorf("study: base: set exactly one of path, shipped and build")
	}
	if b.Shipped != "" {
		if err := checkShipped(b.Shipped); err != nil {
			return fmt.Errorf("study: base: %w", err)
		}
	}
	if b.Build != nil {
		if _, ok := model.Presets[b.Build.Preset]; !ok {
			return fmt.Errorf("study: base: unknown model preset %q to build one (known: %s)",
				b.Build.Preset, strings.Join(model.PresetNames(), ", "))
		}
		if err := b.Build.Validate(); err != nil {
			return fmt.Errorf("study: %w", err)
		}
	}
	return nil
}

// validate checks the thresholds and that the fields the study sets are
// unset; the rest of the evaluation is every run's (run.Config.Validate,
// through runConfig).
func (e EvalConfig) validate() error {
	if len(e.TaskConfig) > 0 || e.Baselines {
		return fmt.Errorf("study: eval: task_config and baselines are set by the study (the arms are measured on the study's task config; the scripted policies play once, beside the runs)")
	}
	for _, t := range e.Thresholds {
		if !(t > 0 && t <= 1) {
			return fmt.Errorf("study: eval: thresholds must lie in (0, 1], got %v", t)
		}
	}
	return nil
}

// thresholdKey names a threshold in updates_to: 0.5 → "0.5".
func thresholdKey(t float64) string {
	if math.Trunc(t) == t {
		return fmt.Sprintf("%.1f", t)
	}
	return fmt.Sprintf("%g", t)
}

// DecodeConfig decodes JSON onto c: fields the data names replace c's
// (nested objects field by field, lists whole), the rest stay, so a
// study.json repeats a study and a few fields vary a preset. Unknown
// fields and trailing data are errors.
//
// Named arms replace c's arms outright: encoding/json decodes a list's
// elements onto the old ones, so without the reset an arm given without
// its "ppo" would silently keep the preset's arm's recipe.
func DecodeConfig(data []byte, c *Config) error {
	var named map[string]json.RawMessage
	if json.Unmarshal(data, &named) == nil {
		if _, ok := named["arms"]; ok {
			c.Arms = nil
		}
	}
	if err := rl.DecodeStrict(data, c); err != nil {
		return fmt.Errorf("study config: %w", err)
	}
	return nil
}

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"unicode"
	"unicode/utf8"

	"arew/engine"
	"arew/model"
	"arew/rl"
)

// Config is a whole run: what runs/<name>/config.json holds, and what
// -config reads. Loading a run's config.json and resolving it gives the
// same Config again (TestConfigRoundTrip), so a run can be repeated with
// `-config runs/<name>/config.json -name <other>`.
//
// Derived fields are recomputed on every resolve, whatever the file says:
// Model.Policy and Model.Critic (from the preset, the task and the critic
// mode, or from the -init checkpoint), the seeds inside PPO, GRPO and
// SFT.Train (copies of Seed), and Version (this binary's).
type Config struct {
	Name string `json:"name"`
	Seed uint64 `json:"seed"`

	Task string `json:"task"`
	// TaskConfig holds the task's JSON overrides (tasks.New); null: the
	// task's documented defaults.
	TaskConfig json.RawMessage `json:"task_config"`

	Model ModelConfig `json:"model"`
	SFT   SFTConfig   `json:"sft"`

	// Algo is ppo, grpo or gspo; exactly one of PPO and GRPO (GRPO's
	// Objective is grpo or gspo) is set after resolve.
	Algo    string         `json:"algo"`
	Updates int            `json:"updates"`
	PPO     *rl.PPOConfig  `json:"ppo,omitempty"`
	GRPO    *rl.GRPOConfig `json:"grpo,omitempty"`

	Eval    EvalConfig `json:"eval"`
	Version Version    `json:"version"`
}

// ModelConfig is the policy's architecture and where its weights start.
type ModelConfig struct {
	Preset string `json:"preset"` // model.Presets; ignored with Init
	// Init is a policy checkpoint (model.Save) to start from instead of
	// fresh weights; its architecture is the checkpoint's.
	Init string `json:"init"`
	// Fresh weights (no Init) are drawn from the run's Seed.
	Policy model.Config  `json:"policy"`           // derived
	Critic *model.Config `json:"critic,omitempty"` // derived: the separate critic
}

// Demonstrator is the scripted policy SFT imitates (tasks.PolicySpec).
type Demonstrator struct {
	Kind string  `json:"kind"` // random, weak, strong, constant
	QAS  float64 `json:"q_as"` // weak: probability of an informative query
	QBT  float64 `json:"q_bt"` // weak: probability that a belief follows the evidence
}

// SFTConfig is the warm start: Demos train-split demonstrations of the
// demonstrator (0: none), TestDemos test-split ones for the held-out loss.
type SFTConfig struct {
	Demos        int          `json:"demos"`
	TestDemos    int          `json:"test_demos"`
	Demonstrator Demonstrator `json:"demonstrator"`
	Train        rl.SFTConfig `json:"train"`
}

// EvalConfig is the evaluation on the test split: the first Episodes test
// instances, before RL (the base), every Every updates (0: only before
// and after) and at the end, greedy and/or sampled at temperature 1.
type EvalConfig struct {
	Every    int    `json:"every"`
	Episodes int    `json:"episodes"`
	Modes    string `json:"modes"` // greedy, sampled or both
	// Baselines adds the task's scripted policies (random, the
	// demonstrator, strong, best constant) on the same instances to
	// report.md.
	Baselines bool `json:"baselines"`
}

// Version is what the binary can say about itself without git.
type Version struct {
	Go     string            `json:"go"`
	OS     string            `json:"os"`
	Arch   string            `json:"arch"`
	CPUs   int               `json:"cpus"`
	Module string            `json:"module"`
	Deps   map[string]string `json:"deps,omitempty"` // the main numeric dependencies
}

func currentVersion() Version {
	v := Version{Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		v.Module = bi.Main.Path
		for _, d := range bi.Deps {
			if strings.HasPrefix(d.Path, "gorgonia.org/") || strings.HasPrefix(d.Path, "gonum.org/") {
				if v.Deps == nil {
					v.Deps = map[string]string{}
				}
				v.Deps[d.Path] = d.Version
			}
		}
	}
	return v
}

// The default experiment (README "Main command"): SFT of the small policy
// on a self-locked demonstrator (weak, q_as = q_bt = 0.2: 2048
// demonstrations, 5 epochs), then PPO + AREW (as+bt, λ 0.5, step mode, as
// the FloDial prototype) on flodial-easy at lr 3e-4, sized to finish in
// a few minutes on 2 cores. Everything else is rl's defaults.
const (
	defaultTask    = "flodial-easy"
	defaultAlgo    = "ppo"
	defaultPreset  = "small"
	defaultUpdates = 80
	defaultLR      = 3e-4 // the FloDial prototype's; rl's default 1e-4 barely moves the policy in 80 updates
)

// DefaultConfig is the default experiment for algo (ppo, grpo or gspo).
func DefaultConfig(algo string) Config {
	sft := rl.DefaultSFTConfig()
	sft.Epochs = 5
	c := Config{
		Seed:  1,
		Task:  defaultTask,
		Model: ModelConfig{Preset: defaultPreset},
		SFT: SFTConfig{
			Demos: 2048, TestDemos: 64,
			Demonstrator: Demonstrator{Kind: "weak", QAS: 0.2, QBT: 0.2},
			Train:        sft,
		},
		Algo:    algo,
		Updates: defaultUpdates,
		Eval:    EvalConfig{Every: 20, Episodes: 100, Modes: "both", Baselines: true},
	}
	arew := rl.AREW{Critiques: "as+bt", Lambda: 0.5, Mode: "step"}
	switch algo {
	case "ppo":
		p := rl.DefaultPPOConfig()
		p.Advantage.AREW = arew
		p.Policy.Optim.LR = defaultLR
		c.PPO = &p
	case "grpo", "gspo":
		g := rl.DefaultGRPOConfig()
		if algo == "gspo" {
			g = rl.DefaultGSPOConfig()
		}
		g.Advantage.AREW = arew
		g.Policy.Optim.LR = defaultLR
		c.GRPO = &g
	}
	return c
}

// peekAlgo is the algo a config file names ("" if none); the file's other
// fields are decoded onto DefaultConfig(algo).
func peekAlgo(data []byte) (string, error) {
	var p struct {
		Algo string `json:"algo"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return "", err
	}
	return p.Algo, nil
}

// readConfigFile decodes a config file onto the defaults of algo (the
// file's own algo when algo is ""), rejecting unknown fields.
func readConfigFile(path, algo string) (Config, error) {
	data, err := engine.ReadFile(path, maxConfigBytes)
	if err != nil {
		return Config{}, usageErrorf("-config: %v", err)
	}
	if algo == "" {
		if algo, err = peekAlgo(data); err != nil {
			return Config{}, usageErrorf("-config %s: %v", path, err)
		}
		if algo == "" {
			algo = defaultAlgo
		}
	}
	c := DefaultConfig(algo)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Config{}, usageErrorf("-config %s: %v", path, err)
	}
	if dec.More() {
		return Config{}, usageErrorf("-config %s: trailing data after the JSON object", path)
	}
	return c, nil
}

// normalise makes the config self-consistent before validation: the
// section of the chosen algo exists (defaults) and the other is dropped,
// the seeds are copies of Seed, the task overrides are compact JSON, the
// version is this binary's. The model configs are derived later, from the
// task (resolveModels).
func (c *Config) normalise() error {
	switch c.Algo {
	case "ppo":
		if c.PPO == nil {
			c.PPO = DefaultConfig("ppo").PPO
		}
		c.GRPO = nil
		c.PPO.Seed = c.Seed
	case "grpo", "gspo":
		if c.GRPO == nil {
			c.GRPO = DefaultConfig(c.Algo).GRPO
		}
		c.PPO = nil
		c.GRPO.Seed = c.Seed
		c.GRPO.Objective = c.Algo
	default:
		return usageErrorf("algo must be ppo, grpo or gspo, got %q", c.Algo)
	}
	c.SFT.Train.Seed = c.Seed
	raw := bytes.TrimSpace(c.TaskConfig)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		c.TaskConfig = nil
	} else {
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			return usageErrorf("task config: %v", err)
		}
		if buf.Bytes()[0] != '{' {
			return usageErrorf("task config must be a JSON object, got %s", buf.String())
		}
		c.TaskConfig = buf.Bytes()
	}
	c.Version = currentVersion()
	return nil
}

// Validate checks what does not need the task; the task, the demonstrator
// and the models are checked when they are built (newExperiment), before
// any work.
func (c *Config) Validate() error {
	if err := validName(c.Name); err != nil {
		return err
	}
	if c.Task == "" {
		return usageErrorf("task must be set")
	}
	if c.Updates < 0 {
		return usageErrorf("updates must be ≥ 0, got %d", c.Updates)
	}
	if c.Model.Init == "" {
		if _, ok := model.Presets[c.Model.Preset]; !ok {
			return usageErrorf("unknown model preset %q (known: %s)", c.Model.Preset, strings.Join(model.PresetNames(), ", "))
		}
	}
	s := c.SFT
	if s.Demos < 0 || s.TestDemos < 0 {
		return usageErrorf("sft: demos and test_demos must be ≥ 0, got %d, %d", s.Demos, s.TestDemos)
	}
	if s.Demos > 0 {
		d := s.Demonstrator
		if !(d.QAS >= 0 && d.QAS <= 1) || !(d.QBT >= 0 && d.QBT <= 1) {
			return usageErrorf("sft: demonstrator q_as and q_bt must lie in [0, 1], got %v, %v", d.QAS, d.QBT)
		}
		if err := s.Train.Validate(); err != nil {
			return usageErrorf("%v", err)
		}
	}
	e := c.Eval
	if e.Every < 0 || e.Episodes < 1 {
		return usageErrorf("eval: need every ≥ 0 and episodes ≥ 1, got %d, %d", e.Every, e.Episodes)
	}
	if _, err := evalModes(e.Modes); err != nil {
		return err
	}
	var err error
	if c.PPO != nil {
		err = c.PPO.Validate()
	} else {
		err = c.GRPO.Validate()
	}
	if err != nil {
		return usageErrorf("%v", err)
	}
	return nil
}

// evalModes lists the evaluation modes of a Modes string.
func evalModes(modes string) ([]string, error) {
	switch modes {
	case "greedy", "sampled":
		return []string{modes}, nil
	case "both":
		return []string{"greedy", "sampled"}, nil
	}
	return nil, usageErrorf("eval modes must be greedy, sampled or both, got %q", modes)
}

// validName accepts a run name that is one plain path element of at most
// maxNameBytes of printable UTF-8.
func validName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) || filepath.Base(name) != name {
		return usageErrorf("run name %q must be one plain path element (no slashes, not . or ..)", name)
	}
	if len(name) > maxNameBytes {
		return usageErrorf("run name must be at most %d bytes, got %d (%.20q…)", maxNameBytes, len(name), name)
	}
	if !utf8.ValidString(name) || strings.IndexFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return usageErrorf("run name %q must be printable UTF-8", name)
	}
	return nil
}

// rollout is the rollout config of the chosen algo.
func (c *Config) rollout() rl.RolloutConfig {
	if c.PPO != nil {
		return c.PPO.Rollout
	}
	return c.GRPO.Rollout
}

// advantage is the advantage config of the chosen algo.
func (c *Config) advantage() *rl.AdvantageConfig {
	if c.PPO != nil {
		return &c.PPO.Advantage
	}
	return &c.GRPO.Advantage
}

// policy is the actor config of the chosen algo.
func (c *Config) policy() *rl.PolicyConfig {
	if c.PPO != nil {
		return &c.PPO.Policy
	}
	return &c.GRPO.Policy
}

// episodesPerUpdate is the number of rollouts of one update.
func (c *Config) episodesPerUpdate() int {
	if c.PPO != nil {
		return c.PPO.Episodes
	}
	return c.GRPO.Prompts * c.GRPO.GroupSize
}

// defaultName derives a run name from the settings that tell runs apart.
func (c *Config) defaultName() string {
	parts := []string{c.Task, c.Algo}
	a := c.advantage().AREW
	if a.Active(a.Start) {
		parts = append(parts, fmt.Sprintf("arew-%s-%s", a.Critiques, trimFloat(a.Lambda)))
		if a.Perturb.Flip > 0 {
			parts = append(parts, "flip"+trimFloat(a.Perturb.Flip))
		}
	} else {
		parts = append(parts, "vanilla")
	}
	if c.Model.Init != "" {
		parts = append(parts, "init")
	} else {
		parts = append(parts, c.Model.Preset)
	}
	if c.SFT.Demos > 0 {
		d := c.SFT.Demonstrator
		sft := fmt.Sprintf("sft-%s%d", d.Kind, c.SFT.Demos)
		if d.Kind == "weak" {
			sft = fmt.Sprintf("sft-weak%s-%s-%d", trimFloat(d.QAS), trimFloat(d.QBT), c.SFT.Demos)
		}
		parts = append(parts, sft)
	}
	parts = append(parts, fmt.Sprintf("u%d", c.Updates), fmt.Sprintf("s%d", c.Seed))
	return strings.Join(parts, "_")
}

// trimFloat writes x in its shortest form.
func trimFloat(x float64) string {
	if math.Trunc(x) == x && math.Abs(x) < 1e15 {
		return fmt.Sprintf("%d", int64(x))
	}
	return fmt.Sprintf("%g", x)
}

package run

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

	"arew/kernels"
	"arew/model"
	"arew/rl"
	"arew/tasks"
)

// Config is a whole run: what runs/<name>/config.json holds, and what
// ReadConfig reads. Loading a run's config.json and resolving it gives the
// same Config again (cmd/train TestConfigRoundTripRepeatsTheRun), so a run
// can be repeated from its config.json under another name.
//
// Derived fields are recomputed on every resolve, whatever the file says:
// Model.Policy and Model.Critic (from the preset, the task and the critic
// mode, or from the Init checkpoint), the seeds inside PPO, GRPO and
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

	// Algorithm is algo (ppo, grpo or gspo) and its config: exactly one
	// of ppo and grpo (whose objective is the algo) after Normalise.
	rl.Algorithm
	Updates int `json:"updates"`

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

// EvalConfig is the evaluation in training, on the validation split (or
// the train split; never test): the first Episodes instances, before RL
// (the base), every Every updates (0: only before and after) and at the
// end, greedy and/or sampled at temperature 1. Test > 0 adds the final
// numbers: the first Test instances of the test split, both modes, once,
// after the last update; nothing else reads the test split.
type EvalConfig struct {
	Every    int    `json:"every"`
	Episodes int    `json:"episodes"`
	Modes    string `json:"modes"`           // greedy, sampled or both
	Split    string `json:"split,omitempty"` // val ("" too) or train
	Test     int    `json:"test,omitempty"`
	// TaskConfig, if set, is the task config the evaluations play instead
	// of the run's own (a study's arms train on their own critiques and
	// are all measured by the study's task). It must show the agent the
	// same tokens (rl/study checks that).
	TaskConfig json.RawMessage `json:"task_config,omitempty"`
	// Baselines adds the task's scripted policies (random, the
	// demonstrator, strong, best constant) on the same instances to
	// report.md.
	Baselines bool `json:"baselines"`
}

// TrainingSplit is the split the in-training evaluations play, named by
// an EvalConfig's Split (a study's too): train, or val for anything else.
func TrainingSplit(name string) tasks.Split {
	if name == "train" {
		return tasks.Train
	}
	return tasks.Val
}

// maxTestEpisodes caps EvalConfig.Test.
const maxTestEpisodes = 1 << 20

// Version is what the binary can say about itself without git.
type Version struct {
	// KernelSet is the CPU kernels that ran (kernels.Impl: avx512,
	// avx2, neon or go), CPU the processor and the features they look at.
	KernelSet string            `json:"kernel_set"`
	CPU       string            `json:"cpu"`
	Go        string            `json:"go"`
	OS        string            `json:"os"`
	Arch      string            `json:"arch"`
	CPUs      int               `json:"cpus"`
	Module    string            `json:"module"`
	Deps      map[string]string `json:"deps,omitempty"` // the main numeric dependencies
}

func currentVersion() Version {
	v := Version{KernelSet: kernels.Impl(), CPU: kernels.CPUFeatures(), Go: runtime.Version(), OS: runtime.GOOS,
		Arch: runtime.GOARCH, CPUs: runtime.NumCPU()}
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

// The default Experiment (README "Main command"): SFT of the small policy
// on a self-locked demonstrator (weak, q_as = q_bt = 0.2: 2048
// demonstrations, 5 epochs), then PPO + AREW (as+bt, λ 0.5, step mode, as
// the FloDial prototype) on flodial-easy at lr 3e-4, sized to finish in
// a few minutes on 2 cores. Everything else is rl's defaults.
const (
	DefaultAlgo    = rl.AlgoPPO
	defaultTask    = "flodial-easy"
	defaultPreset  = "small"
	defaultUpdates = 80
	defaultLR      = 3e-4 // the FloDial prototype's; rl's default 1e-4 barely moves the policy in 80 updates
)

// DefaultConfig is the default Experiment for algo (ppo, grpo or gspo).
func DefaultConfig(algo rl.Algo) Config {
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
		Algorithm: rl.DefaultAlgorithm(algo),
		Updates:   defaultUpdates,
		Eval:      EvalConfig{Every: 20, Episodes: 100, Modes: "both", Baselines: true},
	}
	if c.PPO != nil || c.GRPO != nil {
		c.Advantage().AREW = rl.AREW{Critiques: rl.CritiquesBoth, Lambda: 0.5, Mode: kernels.MarginStep}
		c.Policy().Optim.LR = defaultLR
	}
	return c
}

// ReadConfig reads a config file (at most MaxConfigBytes, a regular
// file) and decodes it onto the defaults of algo (the file's own algo when
// algo is "", ppo when it names none), rejecting unknown fields.
func ReadConfig(path string, algo rl.Algo) (Config, error) {
	data, err := ReadConfigFile(path)
	if err != nil {
		return Config{}, InputErrorf("%v", err)
	}
	if algo == "" {
		var p struct {
			Algo string `json:"algo"`
		}
		if err := json.Unmarshal(data, &p); err != nil {
			return Config{}, InputErrorf("%s: %v", path, err)
		}
		if algo = DefaultAlgo; p.Algo != "" {
			if algo, err = rl.ParseAlgo(p.Algo); err != nil {
				return Config{}, InputErrorf("%s: %v", path, err)
			}
		}
	}
	c := DefaultConfig(algo)
	if err := rl.DecodeStrict(data, &c); err != nil {
		return Config{}, InputErrorf("%s: %v", path, err)
	}
	return c, nil
}

// Normalise makes the config self-consistent before validation: the
// section of the chosen algo exists (defaults) and the other is dropped,
// the seeds are copies of Seed, the task overrides are compact JSON, the
// version is this binary's. The model configs are derived later, from the
// task (New).
func (c *Config) Normalise() error {
	if err := c.Algorithm.Normalise(c.Seed); err != nil {
		return InputErrorf("%v", err)
	}
	c.SFT.Train.Seed = c.Seed
	var err error
	if c.TaskConfig, err = compactObject(c.TaskConfig); err != nil {
		return InputErrorf("task config: %v", err)
	}
	if c.Eval.TaskConfig, err = compactObject(c.Eval.TaskConfig); err != nil {
		return InputErrorf("eval: task config: %v", err)
	}
	c.Version = currentVersion()
	return nil
}

// compactObject is raw as compact JSON, nil for none (absent or null);
// anything but an object is an error.
func compactObject(raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, err
	}
	if buf.Bytes()[0] != '{' {
		return nil, fmt.Errorf("must be a JSON object, got %s", buf.String())
	}
	return buf.Bytes(), nil
}

// Validate checks what does not need the task; the task, the demonstrator
// and the models are checked when they are built (New), before any work.
func (c *Config) Validate() error {
	if err := ValidName("run name", c.Name); err != nil {
		return err
	}
	if c.Task == "" {
		return InputErrorf("task must be set")
	}
	if c.Updates < 0 {
		return InputErrorf("updates must be ≥ 0, got %d", c.Updates)
	}
	if c.Model.Init == "" {
		if _, ok := model.Presets[c.Model.Preset]; !ok {
			return InputErrorf("unknown model preset %q (known: %s)", c.Model.Preset, strings.Join(model.PresetNames(), ", "))
		}
	}
	s := c.SFT
	if s.Demos < 0 || s.TestDemos < 0 {
		return InputErrorf("sft: demos and test_demos must be ≥ 0, got %d, %d", s.Demos, s.TestDemos)
	}
	if s.Demos > 0 {
		d := s.Demonstrator
		if !(d.QAS >= 0 && d.QAS <= 1) || !(d.QBT >= 0 && d.QBT <= 1) {
			return InputErrorf("sft: demonstrator q_as and q_bt must lie in [0, 1], got %v, %v", d.QAS, d.QBT)
		}
		if err := s.Train.Validate(); err != nil {
			return InputErrorf("%v", err)
		}
	}
	e := c.Eval
	if e.Every < 0 || e.Episodes < 1 {
		return InputErrorf("eval: need every ≥ 0 and episodes ≥ 1, got %d, %d", e.Every, e.Episodes)
	}
	if _, err := evalModes(e.Modes); err != nil {
		return err
	}
	if e.Split != "" && e.Split != "val" && e.Split != "train" {
		return InputErrorf("eval: split must be val or train (the test split is read only by the final evaluation, eval.test), got %q", e.Split)
	}
	if e.Test < 0 || e.Test > maxTestEpisodes {
		return InputErrorf("eval: test must lie in [0, %d], got %d", maxTestEpisodes, e.Test)
	}
	if err := c.Algorithm.Validate(); err != nil {
		return InputErrorf("%v", err)
	}
	return nil
}

// evalModes lists the evaluation modes of a Modes string (rl.EvalModes).
func evalModes(modes string) ([]rl.EvalMode, error) {
	ms, err := rl.EvalModes(modes)
	if err != nil {
		return nil, InputErrorf("%v", err)
	}
	return ms, nil
}

// ValidName accepts the name of a run, a study, an arm or an ACT sweep
// (what says which) that is one plain path element of at most
// maxNameBytes of printable UTF-8.
func ValidName(what, name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) || filepath.Base(name) != name {
		return InputErrorf("%s %q must be one plain path element (no slashes, not . or ..)", what, name)
	}
	if len(name) > maxNameBytes {
		return InputErrorf("%s must be at most %d bytes, got %d (%.20q…)", what, maxNameBytes, len(name), name)
	}
	if !utf8.ValidString(name) || strings.IndexFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return InputErrorf("%s %q must be printable UTF-8", what, name)
	}
	return nil
}

// Repeated is the first of xs that an earlier one equals (ok false: none):
// the check of a sweep's seeds.
func Repeated[T comparable](xs []T) (x T, ok bool) {
	seen := make(map[T]bool, len(xs))
	for _, x := range xs {
		if seen[x] {
			return x, true
		}
		seen[x] = true
	}
	return x, false
}

// DefaultName derives a run name from the settings that tell runs apart.
func (c *Config) DefaultName() string {
	parts := []string{c.Task, string(c.Algo)}
	a := c.Advantage().AREW
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
	if c.Policy().HeadRows {
		parts = append(parts, "head-rows")
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

package study

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"time"

	"arew/rl"
	"arew/rl/run"
	"arew/tasks"
)

// CapabilityTarget is the capability criterion of docs/arew.md §8, step 1:
// the plain policy's greedy success at least this share of the strong
// scripted policy's, on the same validation instances.
const CapabilityTarget = 0.85

// Capabilities are the capability recipes of the Table 1 settings (docs/
// arew.md §8, step 1), by name: the plain small policy taught by SFT on
// demonstrations of the setting's strong scripted policy alone, with no
// style, on the setting's layout. The recipe is FloDial's (§6,
// "Capability"): 6 epochs of minibatches of 16 at lr 1e-3, seed 1, 300
// validation demonstrations held out to measure the imitation, on 32,768
// demonstrations (16,384 for PE, whose strong episodes cost milliseconds
// each, as a first attempt on a shared machine). A name is a setting, or a
// setting and what a later attempt changes (docs/arew.md §8, "Capability:
// measured", lists every attempt): pe-g-s2-demos32k is pe-g-s2 on
// FloDial's 32,768 demonstrations; -echo, -pairs and -echo-pairs name PE's
// layout options (tasks/pe doc, "Layout options"); -base trains the
// model preset base (4 layers of width 128) in place of small; -noise
// trains on recovery demonstrations (withNoise); -then- is a curriculum
// (thenLayout); -dagger continues with DAgger rounds (withDAgger);
// -repeat adds the RepeatEcho layout option to every source; -decay lets
// the learning rate decay to the build's end (withDecay); -seed2 is the
// same recipe under seed 2 (a control of what the seed alone moves).
var Capabilities = map[string]func() rl.BaseConfig{
	"pe-g-s2":                               func() rl.BaseConfig { return capability("pe-g-s2", nil, 16384) },
	"pe-g-s2-demos32k":                      func() rl.BaseConfig { return capability("pe-g-s2", nil, 32768) },
	"pe-g-s3":                               func() rl.BaseConfig { return capability("pe-g-s3", nil, 16384) },
	"pe-f-d8":                               func() rl.BaseConfig { return capability("pe-f-d8", nil, 16384) },
	"pe-f-d6":                               func() rl.BaseConfig { return capability("pe-f-d6", nil, 16384) },
	"pe-f-d6-echo":                          func() rl.BaseConfig { return capability("pe-f-d6", echo, 16384) },
	"pe-f-d6-pairs":                         func() rl.BaseConfig { return capability("pe-f-d6", pairs, 16384) },
	"pe-f-d6-echo-pairs":                    func() rl.BaseConfig { return capability("pe-f-d6", echoPairs, 16384) },
	"pe-f-d6-echo-pairs-base":               func() rl.BaseConfig { return onBase(capability("pe-f-d6", echoPairs, 16384)) },
	"pe-f-d6-echo-noise":                    func() rl.BaseConfig { return withNoise(capability("pe-f-d6", echo, 16384)) },
	"pe-f-d6-echo-pairs-noise":              func() rl.BaseConfig { return withNoise(capability("pe-f-d6", echoPairs, 16384)) },
	"pe-f-d6-echo-then-pairs":               func() rl.BaseConfig { return echoThenPairs("pe-f-d6", echo, echoPairs) },
	"pe-f-d6-echo-then-pairs-dagger":        func() rl.BaseConfig { return withDAgger(echoThenPairs("pe-f-d6", echo, echoPairs)) },
	"pe-f-d6-echo-then-pairs-dagger-repeat": func() rl.BaseConfig { return withDAgger(echoThenPairs("pe-f-d6", echoRepeat, echoPairsRepeat)) },
	// PE-F D=6's best recipe on the other PE settings (PE-G has no pairs
	// layout: its echo stage alone, then the same DAgger rounds).
	"pe-f-d8-echo-then-pairs-dagger-base": func() rl.BaseConfig {
		return onBase(withDAgger(echoThenPairs("pe-f-d8", echo, echoPairs)))
	},
	"pe-g-s2-echo-dagger-base": func() rl.BaseConfig { return onBase(withDAgger(capability("pe-g-s2", echo, 16384))) },
	"pe-g-s3-echo-dagger-base": func() rl.BaseConfig { return onBase(withDAgger(capability("pe-g-s3", echo, 16384))) },
	"pe-f-d6-echo-then-pairs-dagger-repeat-seed2": func() rl.BaseConfig {
		c := withDAgger(echoThenPairs("pe-f-d6", echoRepeat, echoPairsRepeat))
		c.Seed = 2
		return c
	},
	"pe-f-d6-echo-then-pairs-dagger-repeat-decay": func() rl.BaseConfig {
		return withDecay(withDAgger(echoThenPairs("pe-f-d6", echoRepeat, echoPairsRepeat)))
	},
	"pe-f-d6-echo-then-pairs-dagger-base": peD6Best,
	"pe-f-d8-echo-pairs":                  func() rl.BaseConfig { return capability("pe-f-d8", echoPairs, 16384) },
	"pe-f-d8-echo":                        func() rl.BaseConfig { return capability("pe-f-d8", echo, 16384) },
	"pe-g-s2-echo":                        func() rl.BaseConfig { return capability("pe-g-s2", echo, 16384) },
	"pe-g-s3-echo":                        func() rl.BaseConfig { return capability("pe-g-s3", echo, 16384) },
	"mediq":                               func() rl.BaseConfig { return capability("mediq", nil, 32768) },
	"flodial-easy":                        func() rl.BaseConfig { return capability("flodial-easy", echo, 32768) },
	"flodial-hard":                        func() rl.BaseConfig { return capability("flodial-hard", echo, 32768) },
	"telecom-solo":                        func() rl.BaseConfig { return capability("telecom-solo", nil, 32768) },
	"telecom-dual":                        func() rl.BaseConfig { return capability("telecom-dual", nil, 32768) },
}

// PE's layout options (tasks/pe doc, "Layout options"): the pairs layout
// alone and with the echo, and the echo layouts with RepeatEcho.
var (
	pairs     = json.RawMessage(`{"Pairs": true}`)
	echoPairs = json.RawMessage(`{"Echo": true, "Pairs": true}`)
	// With RepeatEcho beside them: a repeat's reply restates the first.
	echoRepeat      = json.RawMessage(`{"Echo": true, "RepeatEcho": true}`)
	echoPairsRepeat = json.RawMessage(`{"Echo": true, "Pairs": true, "RepeatEcho": true}`)
)

// withNoise is c with recovery demonstrations (rl.DemoNoise): the random
// policy takes each query turn with probability 0.25, a share fixed before
// any run (docs/arew.md §8, "Capability: measured").
func withNoise(c rl.BaseConfig) rl.BaseConfig {
	c.Sources[0].Noise = &rl.DemoNoise{Policy: tasks.PolicySpec{Kind: "random"}, Kind: "AS", Share: 0.25}
	return c
}

// withDAgger is c continued by 4 DAgger rounds on its last source
// (rl.DAggerConfig), each of 8,192 new demonstrations with the learner
// sampling half the turns at temperature 1, then one epoch on the
// aggregate; all fixed before any run (docs/arew.md §8, "Capability:
// measured").
func withDAgger(c rl.BaseConfig) rl.BaseConfig {
	c.DAgger = &rl.DAggerConfig{Rounds: 4, Demos: 8192, Share: 0.5, Epochs: 1, Sampler: rl.SamplerConfig{Temperature: 1}}
	return c
}

// peD6Best is pe-f-d6-echo-then-pairs-dagger-base, PE-F D=6's best
// recipe (docs/arew.md §8, step 3, "PE-F D=6"), on which its lock
// candidates are built (lockedCurriculum).
func peD6Best() rl.BaseConfig { return onBase(withDAgger(echoThenPairs("pe-f-d6", echo, echoPairs))) }

// onBase is c on the base model preset (4 layers of width 128) in place
// of small.
func onBase(c rl.BaseConfig) rl.BaseConfig {
	c.Preset = "base"
	return c
}

// withDecay is c with its learning rate decaying on a cosine from its
// peak to a tenth of it, reached at the build's last optimiser step
// (rl.BaseConfig.Steps); fixed before any run (docs/arew.md §8,
// "Capability: measured").
func withDecay(c rl.BaseConfig) rl.BaseConfig {
	c.SFT.Optim.MinLR, c.SFT.Optim.Decay = c.SFT.Optim.LR/10, c.Steps()
	return c
}

// echoThenPairs is PE-F's curriculum (thenLayout) on task: 16,384 strong
// demonstrations on the echo layout first, then as many on the echo and
// pairs layout, each given as its task config.
func echoThenPairs(task string, first, then json.RawMessage) rl.BaseConfig {
	return thenLayout(capability(task, first, 16384), "echo", "echo+pairs", then)
}

// thenLayout is c as the first stage of a curriculum (docs/arew.md §8,
// "Capability: measured"): c's source, named first, trains alone for c's
// epochs, then a second source, named then, of as many strong
// demonstrations on the task config next (later train instances), trains
// alone for as many epochs again. The capability is judged on the last
// source's layout (judge).
func thenLayout(c rl.BaseConfig, first, then string, next json.RawMessage) rl.BaseConfig {
	n := c.SFT.Epochs
	c.SFT.Epochs = 2 * n
	stage2 := c.Sources[0]
	c.Sources[0].Name, c.Sources[0].Epochs = first, &rl.EpochRange{First: 1, Last: n}
	stage2.Name, stage2.TaskConfig, stage2.Epochs = then, next, &rl.EpochRange{First: n + 1, Last: 2 * n}
	c.Sources = append(c.Sources, stage2)
	return c
}

// capability is the recipe on task with the task config layout and demos
// strong demonstrations.
func capability(task string, layout json.RawMessage, demos int) rl.BaseConfig {
	sft := rl.DefaultSFTConfig()
	sft.Epochs = 6
	return rl.BaseConfig{Task: task, Preset: "small", Seed: 1, SFT: sft, Sources: []rl.DemoSource{
		{Name: "plain", TaskConfig: layout, Policy: tasks.PolicySpec{Kind: "strong"}, Demos: demos, TestDemos: 300},
	}}
}

// CapabilityNames lists the capability recipes, sorted.
func CapabilityNames() []string { return run.PresetNames(Capabilities) }

// CapabilitySummary is a capability build's summary.json: the recipe, the
// evaluation rows (the policy greedy and sampled beside the scripted
// strong and random policies and the best constant, then the hybrid of
// EvaluateHybrid, on the first Episodes validation instances), the greedy
// success against the strong policy's, the hybrid's greedy success, and
// the wall time.
type CapabilitySummary struct {
	Name     string        `json:"name"`
	Config   rl.BaseConfig `json:"config"`
	Episodes int           `json:"episodes"`
	Rows     []BaseRow     `json:"rows"`
	Greedy   run.Num       `json:"greedy_success"`
	Strong   run.Num       `json:"strong_success"`
	Ratio    run.Num       `json:"ratio"`
	Met      bool          `json:"target_met"`
	Beliefs  run.Num       `json:"beliefs_greedy_success"` // EvaluateHybrid's greedy success
	// DAgger is each DAgger round's data collection (Config.DAgger).
	DAgger []rl.DAggerRound `json:"dagger,omitempty"`
	// Seconds is the wall time of the build and its evaluation; for a
	// resumed build, each earlier process's up to its last checkpoint set
	// plus the last process's.
	Seconds float64 `json:"seconds"`
}

// BuildCapability trains capability recipe name into dir (which must not
// exist or be empty; base-sft.jsonl, policy.safetensors) by the base build's SFT
// (trainBase, keeping a checkpoint set after every epoch in
// base-checkpoint/, so that ResumeCapability can go on from it) and
// evaluates it by the base build's evaluation (EvaluateBase) and by
// EvaluateHybrid on the first BaseEvalEpisodes validation instances; it
// writes summary.json and report.md there. Nothing reads a test instance.
func BuildCapability(ctx context.Context, name, dir string, out io.Writer) (*CapabilitySummary, error) {
	recipe, ok := Capabilities[name]
	if !ok {
		return nil, run.InputErrorf("no capability recipe %q (recipes: %s)", name, strings.Join(CapabilityNames(), ", "))
	}
	cfg := recipe()
	if _, _, err := rl.BaseSources(cfg); err != nil {
		return nil, &run.InputError{Err: err}
	}
	if err := run.PrepareDir(dir, false); err != nil {
		return nil, err
	}
	return buildCapability(ctx, name, cfg, dir, out)
}

// ResumeCapability goes on with the capability build stopped in dir, from
// the checkpoint set in its base-checkpoint/ (whose manifest names the
// recipe), bitwise as if it had never stopped, and finishes it as
// BuildCapability does.
func ResumeCapability(ctx context.Context, dir string, out io.Writer) (*CapabilitySummary, error) {
	name, cfg, err := resumable(dir, JobCapability)
	if err != nil {
		return nil, err
	}
	return buildCapability(ctx, name, cfg, dir, out)
}

// buildCapability trains (or goes on training) recipe name's cfg in dir
// and evaluates it (BuildCapability).
func buildCapability(ctx context.Context, name string, cfg rl.BaseConfig, dir string, out io.Writer) (*CapabilitySummary, error) {
	start := time.Now()
	built, err := trainBase(ctx, cfg, dir, filepath.Join(dir, BaseCheckpointDir), out, map[string]string{JobCapability: name})
	if err != nil {
		return nil, err
	}
	policy := built.Policy
	if err := policy.Save(filepath.Join(dir, "policy.safetensors"), map[string]string{"capability": name}); err != nil {
		return nil, err
	}
	sum := &CapabilitySummary{Name: name, Config: cfg, Episodes: BaseEvalEpisodes, Beliefs: run.Num(math.NaN()), DAgger: built.Rounds}
	if sum.Rows, err = EvaluateBase(ctx, policy, cfg, BaseEvalEpisodes, out); err != nil {
		return nil, err
	}
	hybrid, err := EvaluateHybrid(ctx, policy, cfg, BaseEvalEpisodes, out)
	if err != nil {
		return nil, err
	}
	sum.Rows = append(sum.Rows, hybrid...)
	sum.Seconds = built.EarlierSecs + time.Since(start).Seconds()
	sum.judge()
	if err := run.WriteJSON(filepath.Join(dir, BaseSummaryFile), sum); err != nil {
		return nil, err
	}
	return sum, run.WriteFile(filepath.Join(dir, BaseReportFile), []byte(sum.Report()))
}

// judge reads the greedy and strong successes off the rows of the last
// source (the layout a curriculum ends on; a recipe has one source
// otherwise) and applies CapabilityTarget.
func (s *CapabilitySummary) judge() {
	last := s.Config.Sources[len(s.Config.Sources)-1].Name
	for _, r := range s.Rows {
		if r.Source != last {
			continue
		}
		switch r.Policy {
		case "base, greedy":
			s.Greedy = r.Measures.Success
		case "scripted strong":
			s.Strong = r.Measures.Success
		case hybridPolicy + ", greedy":
			s.Beliefs = r.Measures.Success
		}
	}
	s.Ratio = s.Greedy / s.Strong
	s.Met = float64(s.Ratio) >= CapabilityTarget
}

// Report is a capability build's report.md.
func (s *CapabilitySummary) Report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Capability %s\n\n", s.Name)
	fmt.Fprintf(&b, "- recipe: a plain %s policy, %d SFT epochs (minibatch %d, lr %g), seed %d, on %s of %s (%s)\n",
		s.Config.Preset, s.Config.SFT.Epochs, s.Config.SFT.MiniBatch, s.Config.SFT.Optim.LR, s.Config.Seed,
		demoList(s.Config.Sources), s.Config.Task, layoutList(s.Config.Sources))
	for _, r := range s.DAgger { // a capability recipe's sources are all the strong policy's
		fmt.Fprintf(&b, "- %s\n", daggerLine(r, s.Config, "the strong policy"))
	}
	if len(s.Config.Sources) > 1 {
		fmt.Fprintf(&b, "- judged on the last source's layout, %s\n", s.Config.Sources[len(s.Config.Sources)-1].Name)
	}
	fmt.Fprintf(&b, "- evaluated on the first %d validation instances; sampled at temperature 1; %s wall\n",
		s.Episodes, time.Duration(s.Seconds*float64(time.Second)).Round(time.Second))
	fmt.Fprintf(&b, "- greedy success %s = %s × the strong policy's %s; target ≥ %.2f×: %s\n",
		f3(s.Greedy), f3(s.Ratio), f3(s.Strong), CapabilityTarget, map[bool]string{true: "met", false: "missed"}[s.Met])
	if math.IsNaN(float64(s.Beliefs)) {
		fmt.Fprintf(&b, "- the belief skill alone (%s): none, the task has no belief turns\n", hybridPolicy)
	} else {
		fmt.Fprintf(&b, "- the belief skill alone (%s): greedy success %s = %s × the strong policy's\n",
			hybridPolicy, f3(s.Beliefs), f3(s.Beliefs/s.Strong))
	}
	fmt.Fprintf(&b, "- remade by `go run ./cmd/train -capability %s`\n\n", s.Name)
	b.WriteString(BaseTable(s.Rows))
	if t := RepeatTable(s.Rows); t != "" {
		b.WriteString("\nThe played rows' episodes split by whether they repeat a query (a repeat gets no new evidence):\n\n")
		b.WriteString(t)
	}
	return b.String()
}

// layoutList is the sources' task configs: "task config {…}" for one
// source, "task configs: name {…}, …" for several.
func layoutList(src []rl.DemoSource) string {
	if len(src) == 1 {
		return "task config " + layoutText(src[0].TaskConfig)
	}
	parts := make([]string, len(src))
	for i, s := range src {
		parts[i] = s.Name + " " + layoutText(s.TaskConfig)
	}
	return "task configs: " + strings.Join(parts, ", ")
}

func layoutText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "{} (the setting's defaults)"
	}
	return string(raw)
}

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"arew/kernels"
	"arew/model"
	"arew/rl"
	arewrun "arew/rl/run"
)

// Config is a single run's config (run).
type Config = arewrun.Config

// invocation is the parsed command line: the resolved run config and the
// flags that are not part of it.
type invocation struct {
	cfg   Config
	out   string // the folder holding the run folders
	force bool   // replace an existing non-empty run folder
	// sftFromInit: -init was given without -sft-demos, so SFT was turned
	// off (printed as a note).
	sftFromInit bool
	// study names a study preset (rl/study.Presets): the command runs it
	// instead of one run; name and init, if given, override its name and
	// its base checkpoint.
	study, studyName, studyBase string
	// studyConfig is a JSON file decoded onto the preset (study.DecodeConfig).
	studyConfig string
	// resume is a folder to continue: a study's (it holds study.json:
	// study.Resume) or a single run's (config.json: the run goes on from
	// its checkpoint set to its updates, or to -updates).
	resume string
	// resumeStudy, resumeACT: resume is a study's folder, or an ACT
	// study's (act.ResumeStudy); resumeBuild is the job (study.JobCapability,
	// study.JobBuildBase) of the build stopped in it, if it is one's;
	// resumeUpdates is a run's new number of updates (-updates), or −1.
	resumeStudy, resumeACT bool
	resumeBuild            string
	resumeUpdates          int
	// buildBase names a shipped base (rl/study.Bases) to rebuild and
	// evaluate instead of a run.
	buildBase string
	// act names an ACT study preset (rl/act.StudyPreset) to run instead.
	act string
	// capability names a capability recipe (rl/study.Capabilities) to
	// train and evaluate instead.
	capability string
	// chooseLock names a setting whose lock candidates (built under out)
	// the rule of docs/arew.md §8, step 3, judges instead (study.LockChoice).
	chooseLock string
	// cache is a result cache's folder for a study's or an ACT study's
	// runs (run.Cache; "": none).
	cache string
	// jobs is how many runs of a study or an ACT study run at once
	// (run.WithJobs).
	jobs int
	// runFlags are the run flags given without -config: the command runs
	// one experiment instead of the default study, and says so.
	runFlags []string
}

// overrides collects the flags given on the command line that change the
// config. They apply after the config file (flags override the file), in
// the order the flags are registered (so -group applies before -episodes),
// the last occurrence of a flag winning.
type overrides struct {
	order []string
	set   map[string]func(*Config) error
	raw   map[string]string // each given flag's value as typed (checked by its parse)
}

func (o *overrides) add(name string, apply func(*Config) error) { o.set[name] = apply }

// parseArgs builds the run config: DefaultConfig (or the -config file
// decoded onto it), then the flags given. Help returns flag.ErrHelp.
func parseArgs(args []string, stderr io.Writer) (invocation, error) {
	var inv invocation
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are returned; -h prints the usage below
	d := arewrun.DefaultConfig(arewrun.DefaultAlgo)
	configPath := fs.String("config", "", "")
	fs.StringVar(&inv.out, "out", "runs", "")
	fs.BoolVar(&inv.force, "force", false, "")
	fs.StringVar(&inv.study, "study", "", "")
	fs.StringVar(&inv.studyConfig, "study-config", "", "")
	fs.StringVar(&inv.resume, "resume", "", "")
	fs.StringVar(&inv.buildBase, "build-base", "", "")
	fs.StringVar(&inv.act, "act", "", "")
	fs.StringVar(&inv.capability, "capability", "", "")
	fs.StringVar(&inv.chooseLock, "choose-lock", "", "")
	fs.StringVar(&inv.cache, "cache", "", "")
	fs.IntVar(&inv.jobs, "jobs", 1, "")

	o := &overrides{set: map[string]func(*Config) error{}, raw: map[string]string{}}
	var docs []flagDoc
	for _, f := range runFlagTable(d) {
		o.order = append(o.order, f.name)
		docs = append(docs, flagDoc{f.section, f.name, f.kind, f.usage})
		register := fs.Func
		if f.kind == "" {
			register = fs.BoolFunc
		}
		register(f.name, f.usage, func(s string) error {
			apply, err := f.parse(s)
			if err != nil {
				return err
			}
			o.raw[f.name] = s
			o.add(f.name, apply)
			return nil
		})
	}

	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(stderr, docs)
			return inv, err
		}
		if name := undefinedFlag(err); name != "" {
			if near := nearestFlag(fs, name); near != "" {
				return inv, arewrun.InputErrorf("%v: did you mean -%s? (-h lists the flags)", err, near)
			}
		}
		return inv, arewrun.InputErrorf("%v (-h lists the flags)", err)
	}
	if fs.NArg() > 0 {
		return inv, arewrun.InputErrorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if inv.jobs < 1 {
		return inv, arewrun.InputErrorf("-jobs %d: want at least 1 run at a time", inv.jobs)
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	return route(inv, o, given, *configPath)
}

// route sends a parsed command line to its job (jobs): at most one job
// flag, the flags it takes; with none, one run (run flags or -config), or
// the default study when only -out and -force are given.
func route(inv invocation, o *overrides, given map[string]bool, configPath string) (invocation, error) {
	job := ""
	for _, j := range jobs() {
		if !given[j.flag] {
			continue
		}
		if job != "" {
			return inv, arewrun.InputErrorf("-%s and -%s are two different jobs: give one", job, j.flag)
		}
		job = j.flag
		if j.takes != nil {
			if err := takesOnly(given, job, j.takes); err != nil {
				return inv, err
			}
		}
	}
	switch {
	case job == "capability":
		return capabilityInvocation(inv, o)
	case job == "choose-lock":
		return inv, nil // its setting is checked where its candidates are read
	case job == "act":
		return actInvocation(inv, o)
	case job == "resume":
		return resumeInvocation(inv, o, given)
	case job == "" && len(o.set) == 0 && configPath == "" && !given["study-config"]:
		inv.study = "default" // -out, -force, -cache and -jobs alone still mean the main job
		fallthrough
	case job == "study" || job == "build-base":
		return studyInvocation(inv, o)
	case given["study-config"]:
		return inv, arewrun.InputErrorf("-study-config goes with -study")
	case given["cache"]:
		return inv, arewrun.InputErrorf("-cache goes with -study, -act or a study's -resume")
	case given["jobs"]:
		return inv, arewrun.InputErrorf("-jobs goes with -study, -act or a study's -resume")
	}
	if configPath == "" {
		for _, name := range o.order {
			if _, ok := o.set[name]; ok {
				inv.runFlags = append(inv.runFlags, "-"+name)
			}
		}
	}
	cfg, sftFromInit, err := runConfig(o, configPath)
	if err != nil {
		return inv, err
	}
	inv.cfg, inv.sftFromInit = cfg, sftFromInit
	return inv, nil
}

// runConfig is one run's config: DefaultConfig of its algo (or the -config
// file decoded onto it), then the flags given, in table order. sftFromInit
// reports that -init without -sft-demos turned the SFT warm start off.
func runConfig(o *overrides, configPath string) (cfg Config, sftFromInit bool, err error) {
	// The base: the file decoded onto the defaults of its algo (or of
	// -algo's), or the defaults.
	var algo rl.Algo
	if raw, ok := o.raw["algo"]; ok {
		if algo, err = rl.ParseAlgo(raw); err != nil {
			return cfg, false, arewrun.InputErrorf("-%v", err)
		}
	}
	if configPath != "" {
		if cfg, err = arewrun.ReadConfig(configPath, algo); err != nil {
			return cfg, false, arewrun.InputErrorf("-config: %v", err)
		}
	} else {
		if algo == "" {
			algo = arewrun.DefaultAlgo
		}
		cfg = arewrun.DefaultConfig(algo)
	}
	if apply, ok := o.set["algo"]; ok {
		_ = apply(&cfg)
	}
	if err := cfg.Normalise(); err != nil {
		return cfg, false, err
	}
	for _, name := range o.order {
		if apply, ok := o.set[name]; ok && name != "algo" {
			if err := apply(&cfg); err != nil {
				return cfg, false, err
			}
		}
	}
	if _, initSet := o.set["init"]; initSet {
		if _, demosSet := o.set["sft-demos"]; !demosSet && cfg.SFT.Demos > 0 {
			cfg.SFT.Demos = 0
			sftFromInit = true
		}
	}
	if err := cfg.Normalise(); err != nil {
		return cfg, false, err
	}
	if cfg.Name == "" {
		cfg.Name = cfg.DefaultName()
	}
	if err := cfg.Validate(); err != nil {
		return cfg, false, err
	}
	return cfg, sftFromInit, nil
}

// The run flags, one table: each flag's section and line in -h, and how
// its value, as typed on the command line, sets the run config. parseArgs
// registers them in order; -h prints them by section.

// runFlag is one flag that changes the run config: parse checks the value
// as typed and returns what applies it.
type runFlag struct {
	section, name, kind, usage string
	parse                      func(s string) (func(*Config) error, error)
}

// flagTable collects the run flags section by section.
type flagTable struct {
	section string
	flags   []runFlag
}

// runFlagTable is every run flag, with the defaults of d in its usage.
func runFlagTable(d Config) []runFlag {
	t := &flagTable{}
	t.runSectionFlags(d)
	t.modelFlags(d)
	t.updateFlags(d)
	t.arewFlags(d)
	t.sftFlags(d)
	t.evalFlags(d)
	return t.flags
}

func (t *flagTable) add(name, kind, usage string, parse func(s string) (func(*Config) error, error)) {
	t.flags = append(t.flags, runFlag{t.section, name, kind, usage, parse})
}

func (t *flagTable) str(name, usage string, apply func(*Config, string) error) {
	t.add(name, "string", usage, func(s string) (func(*Config) error, error) {
		return func(c *Config) error { return apply(c, s) }, nil
	})
}

// parsed adds a flag whose value parse reads (an error says it is not
// what, naming the value as typed) and apply sets.
func parsed[T any](t *flagTable, name, kind, what, usage string, parse func(string) (T, error), apply func(*Config, T) error) {
	t.add(name, kind, usage, func(s string) (func(*Config) error, error) {
		v, err := parse(s)
		if err != nil {
			return nil, fmt.Errorf("not %s: %q", what, s)
		}
		return func(c *Config) error { return apply(c, v) }, nil
	})
}

func (t *flagTable) integer(name, usage string, apply func(*Config, int) error) {
	parsed(t, name, "int", "an integer", usage, strconv.Atoi, apply)
}

func (t *flagTable) float(name, usage string, apply func(*Config, float64) error) {
	parsed(t, name, "float", "a number", usage, func(s string) (float64, error) { return strconv.ParseFloat(s, 64) }, apply)
}

func (t *flagTable) boolean(name, usage string, apply func(*Config, bool) error) {
	parsed(t, name, "", "a boolean", usage, strconv.ParseBool, apply)
}

// integerAtLeast is integer with the value checked against min, so the
// error names the flag.
func (t *flagTable) integerAtLeast(name string, min int, usage string, apply func(*Config, int) error) {
	t.integer(name, usage, func(c *Config, v int) error {
		if v < min {
			return arewrun.InputErrorf("-%s must be ≥ %d, got %d", name, min, v)
		}
		return apply(c, v)
	})
}

// floatIn is float with the value checked to lie in [lo, hi].
func (t *flagTable) floatIn(name string, lo, hi float64, usage string, apply func(*Config, float64) error) {
	t.float(name, usage, func(c *Config, v float64) error {
		if !(v >= lo && v <= hi) {
			return arewrun.InputErrorf("-%s must lie in [%.3g, %.3g]%s, got %v", name, lo, hi, float32Note(hi), v)
		}
		return apply(c, v)
	})
}

// positive is float with the value checked to be a positive float32.
func (t *flagTable) positive(name, usage string, apply func(*Config, float64) error) {
	t.float(name, usage, func(c *Config, v float64) error {
		if !(v > 0 && v <= rl.MaxRate) {
			return arewrun.InputErrorf("-%s must be a positive number of at most %.3g (float32), got %v", name, rl.MaxRate, v)
		}
		return apply(c, v)
	})
}

// float32Note says why a bound is rl.MaxRate: the value is a float32 in
// the graph.
func float32Note(hi float64) string {
	if hi == rl.MaxRate {
		return " (float32)"
	}
	return ""
}

// oneOf is str with the value checked against values.
func (t *flagTable) oneOf(name string, values []string, usage string, apply func(*Config, string) error) {
	t.str(name, usage, func(c *Config, s string) error {
		if !slices.Contains(values, s) {
			return arewrun.InputErrorf("-%s must be one of %s, got %q", name, strings.Join(values, ", "), s)
		}
		return apply(c, s)
	})
}

// ppoOnly is c's PPO section, or an error naming the flag when the run is
// not PPO.
func ppoOnly(c *Config, flagName string) (*rl.PPOConfig, error) {
	if c.PPO == nil {
		return nil, arewrun.InputErrorf("-%s applies to -algo ppo only (this run is %s)", flagName, c.Algo)
	}
	return c.PPO, nil
}

func (t *flagTable) runSectionFlags(d Config) {
	t.section = "run"
	t.str("name", "run name: outputs go to <out>/<name>/ (default: derived from the settings and the seed)",
		func(c *Config, s string) error { c.Name = s; return nil })
	t.integerAtLeast("seed", 0, fmt.Sprintf("run seed: every random stream derives from it (default %d)", d.Seed),
		func(c *Config, v int) error { c.Seed = uint64(v); return nil })
	t.str("task", fmt.Sprintf("task setting, any registered name (default %s)", d.Task),
		func(c *Config, s string) error { c.Task = s; return nil })
	t.str("task-config", `JSON overrides of the task's config, e.g. '{"Critiques":"consistent"}'`,
		func(c *Config, s string) error { c.TaskConfig = []byte(s); return nil })
	t.str("algo", "ppo, grpo or gspo (default ppo)", func(c *Config, s string) error { c.Algo = rl.Algo(s); return nil })
	t.integerAtLeast("updates", 0, fmt.Sprintf("RL updates (default %d)", d.Updates),
		func(c *Config, v int) error { c.Updates = v; return nil })
}

func (t *flagTable) modelFlags(d Config) {
	t.section = "model"
	dp := d.PPO
	t.oneOf("model", model.PresetNames(), fmt.Sprintf("model preset: tiny, small or base (default %s)", d.Model.Preset),
		func(c *Config, s string) error { c.Model.Preset = s; return nil })
	t.str("init", "start from this policy checkpoint (e.g. runs/x/checkpoints/base.safetensors); turns SFT off unless -sft-demos is given",
		func(c *Config, s string) error { c.Model.Init = s; return nil })
	t.oneOf("critic", []string{"separate", "shared"}, fmt.Sprintf("PPO critic: separate or shared (default %s)", dp.Critic.Mode),
		func(c *Config, s string) error {
			p, err := ppoOnly(c, "critic")
			if err == nil {
				p.Critic.Mode = rl.CriticMode(s)
			}
			return err
		})
}

func (t *flagTable) updateFlags(d Config) {
	t.section = "update"
	dp := d.PPO
	t.integerAtLeast("group", 1, "GRPO/GSPO rollouts per prompt (default 5); the prompts per update stay unless -episodes is given",
		func(c *Config, v int) error {
			if c.GRPO == nil {
				return arewrun.InputErrorf("-group applies to -algo grpo or gspo only")
			}
			c.GRPO.GroupSize = v
			return nil
		})
	t.integerAtLeast("episodes", 1, fmt.Sprintf("rollouts per update (default %d; GRPO/GSPO: prompts × group, a multiple of the group)", dp.Episodes),
		func(c *Config, v int) error {
			if c.PPO != nil {
				c.PPO.Episodes = v
				return nil
			}
			g := c.GRPO.GroupSize
			if g < 1 || v < 1 || v%g != 0 {
				return arewrun.InputErrorf("-episodes %d must be a positive multiple of the group size %d", v, g)
			}
			c.GRPO.Prompts = v / g
			return nil
		})
	t.integerAtLeast("instances", 0, "cycle through the first N train instances (0: fresh instances every update)",
		func(c *Config, v int) error { *c.Instances() = v; return nil })
	t.integerAtLeast("minibatch", 1, fmt.Sprintf("trajectories per minibatch (default %d)", dp.Policy.MiniBatch),
		func(c *Config, v int) error { c.Policy().MiniBatch = v; return nil })
	t.integerAtLeast("epochs", 1, fmt.Sprintf("passes over each update's batch (default %d)", dp.Policy.Epochs),
		func(c *Config, v int) error { c.Policy().Epochs = v; return nil })
	t.positive("lr", fmt.Sprintf("policy learning rate (default %g)", dp.Policy.Optim.LR),
		func(c *Config, v float64) error { c.Policy().Optim.LR = v; return nil })
	t.positive("critic-lr", fmt.Sprintf("separate critic's learning rate (default %g)", dp.Critic.Optim.LR),
		func(c *Config, v float64) error {
			p, err := ppoOnly(c, "critic-lr")
			if err == nil {
				p.Critic.Optim.LR = v
			}
			return err
		})
	t.floatIn("entropy", 0, rl.MaxRate, "entropy bonus coefficient (default 0)",
		func(c *Config, v float64) error { c.Policy().EntropyCoef = v; return nil })
	t.floatIn("kl", 0, rl.MaxRate, "coefficient of the KL to the initial policy (default 0: off)",
		func(c *Config, v float64) error { c.Policy().KLCoef = v; return nil })
	t.boolean("head-rows", "opt-in (default false): build the training graphs' last block and heads at the loss's rows only (faster; "+
		"not bitwise the plain graph, so a run with it is another run; docs/bench.md, \"The last block at the loss's rows only\")",
		func(c *Config, v bool) error { c.Policy().HeadRows = v; return nil })
	t.integerAtLeast("workers", 0, "rollout goroutines (0: one per CPU; results do not depend on it)",
		func(c *Config, v int) error { c.Rollout().Workers = v; return nil })
}

func (t *flagTable) arewFlags(d Config) {
	t.section = "AREW"
	dp := d.PPO
	da := dp.Advantage.AREW
	t.str("arew", fmt.Sprintf("critiques feeding the AREW margin: none, as, bt or as+bt (default %s)", da.Critiques),
		func(c *Config, s string) error {
			if set := rl.CritiqueSet(s); set != "" && set.Validate() == nil {
				c.Advantage().AREW.Critiques = set
				return nil
			}
			return arewrun.InputErrorf("-arew must be one of none, as, bt or as+bt, got %q", s)
		})
	t.floatIn("lambda", -rl.MaxRate, rl.MaxRate, fmt.Sprintf("AREW λ (default %g)", da.Lambda),
		func(c *Config, v float64) error { c.Advantage().AREW.Lambda = v; return nil })
	t.str("mode", fmt.Sprintf("AREW margin mode: step, step_spread, minority_fixed or abs_sum (default %s)", da.Mode),
		func(c *Config, s string) error {
			m, err := kernels.ParseMarginMode(s)
			if err != nil {
				return arewrun.InputErrorf("-mode: %v", err)
			}
			c.Advantage().AREW.Mode = m
			return nil
		})
	t.integerAtLeast("arew-start", 0, "first update (0-based) with the AREW correction (default 0)",
		func(c *Config, v int) error { c.Advantage().AREW.Start = v; return nil })
	t.integerAtLeast("arew-end", 0, "update at which the AREW correction stops (default 0: never)",
		func(c *Config, v int) error { c.Advantage().AREW.End = v; return nil })
	t.boolean("arew-separate", "separate AS and BT margins (the PE prototype's form)",
		func(c *Config, v bool) error { c.Advantage().AREW.Separate = v; return nil })
	t.floatIn("flip", 0, 1, "flip each critique with probability α (robustness study; default 0)",
		func(c *Config, v float64) error { c.Advantage().AREW.Perturb.Flip = v; return nil })
}

func (t *flagTable) sftFlags(d Config) {
	t.section = "SFT warm start"
	ds := d.SFT
	t.integerAtLeast("sft-demos", 0, fmt.Sprintf("SFT demonstrations from the train split (0: no warm start; default %d)", ds.Demos),
		func(c *Config, v int) error { c.SFT.Demos = v; return nil })
	t.integerAtLeast("sft-test-demos", 0, fmt.Sprintf("held-out demonstrations for the SFT test loss (default %d)", ds.TestDemos),
		func(c *Config, v int) error { c.SFT.TestDemos = v; return nil })
	t.str("demonstrator", fmt.Sprintf("scripted policy SFT imitates: weak, strong, random or constant (default %s)", ds.Demonstrator.Kind),
		func(c *Config, s string) error { c.SFT.Demonstrator.Kind = s; return nil })
	t.floatIn("qas", 0, 1, fmt.Sprintf("weak demonstrator: probability of an informative query (default %g)", ds.Demonstrator.QAS),
		func(c *Config, v float64) error { c.SFT.Demonstrator.QAS = v; return nil })
	t.floatIn("qbt", 0, 1, fmt.Sprintf("weak demonstrator: probability that a belief follows the evidence (default %g)", ds.Demonstrator.QBT),
		func(c *Config, v float64) error { c.SFT.Demonstrator.QBT = v; return nil })
	t.integerAtLeast("sft-epochs", 1, fmt.Sprintf("SFT epochs (default %d)", ds.Train.Epochs),
		func(c *Config, v int) error { c.SFT.Train.Epochs = v; return nil })
	t.integerAtLeast("sft-minibatch", 1, fmt.Sprintf("SFT minibatch (default %d)", ds.Train.MiniBatch),
		func(c *Config, v int) error { c.SFT.Train.MiniBatch = v; return nil })
	t.positive("sft-lr", fmt.Sprintf("SFT learning rate (default %g)", ds.Train.Optim.LR),
		func(c *Config, v float64) error { c.SFT.Train.Optim.LR = v; return nil })
}

func (t *flagTable) evalFlags(d Config) {
	t.section = "evaluation"
	t.integerAtLeast("eval-every", 0, fmt.Sprintf("evaluate (and checkpoint) every K updates (0: only before and after RL; default %d)", d.Eval.Every),
		func(c *Config, v int) error { c.Eval.Every = v; return nil })
	t.integerAtLeast("eval-episodes", 1, fmt.Sprintf("validation instances per evaluation (default %d)", d.Eval.Episodes),
		func(c *Config, v int) error { c.Eval.Episodes = v; return nil })
	t.oneOf("eval-modes", []string{"greedy", "sampled", "both"}, fmt.Sprintf("greedy, sampled or both (default %s)", d.Eval.Modes),
		func(c *Config, s string) error { c.Eval.Modes = s; return nil })
	t.boolean("baselines", "evaluate the task's scripted policies for report.md (default true)",
		func(c *Config, v bool) error { c.Eval.Baselines = v; return nil })
}

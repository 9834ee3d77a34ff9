package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"arew/rl"
	"arew/rl/act"
	"arew/rl/experiment"
	"arew/rl/study"
)

// Config is a single run's config (rl/experiment).
type Config = experiment.Config

// usageError is bad user input (a flag, a config file, a checkpoint that
// does not fit): the command exits with status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

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
	// resumeStudy: resume is a study's folder; resumeUpdates is a run's
	// new number of updates (-updates), or −1.
	resumeStudy   bool
	resumeUpdates int
	// buildBase names a shipped base (rl/study.Bases) to rebuild and
	// evaluate instead of a run.
	buildBase string
	// act names an ACT study preset (rl/act.StudyPreset) to run instead.
	act string
	// runFlags are the run flags given without -config: the command runs
	// one experiment instead of the default study, and says so.
	runFlags []string
}

// studyFlags are the flags -study accepts besides -out and -force.
var studyFlags = map[string]bool{"name": true, "init": true}

// overrides collects the flags given on the command line that change the
// config. They apply after the config file (flags override the file), in
// the order the flags are registered (so -group applies before -episodes),
// the last occurrence of a flag winning.
type overrides struct {
	order []string
	set   map[string]func(*Config) error
}

func (o *overrides) add(name string, apply func(*Config) error) { o.set[name] = apply }

// parseArgs builds the run config: DefaultConfig (or the -config file
// decoded onto it), then the flags given. Help returns flag.ErrHelp.
func parseArgs(args []string, stderr io.Writer) (invocation, error) {
	var inv invocation
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are returned; -h prints the usage below
	d := experiment.DefaultConfig(experiment.DefaultAlgo)
	dp := d.PPO
	configPath := fs.String("config", "", "")
	fs.StringVar(&inv.out, "out", "runs", "")
	fs.BoolVar(&inv.force, "force", false, "")
	fs.StringVar(&inv.study, "study", "", "")
	fs.StringVar(&inv.studyConfig, "study-config", "", "")
	fs.StringVar(&inv.resume, "resume", "", "")
	fs.StringVar(&inv.buildBase, "build-base", "", "")
	fs.StringVar(&inv.act, "act", "", "")

	o := &overrides{set: map[string]func(*Config) error{}}
	var docs []flagDoc
	section := "run"
	doc := func(name, kind, usage string) {
		o.order = append(o.order, name)
		docs = append(docs, flagDoc{section, name, kind, usage})
	}
	str := func(name, usage string, apply func(*Config, string) error) {
		doc(name, "string", usage)
		fs.Func(name, usage, func(s string) error {
			o.add(name, func(c *Config) error { return apply(c, s) })
			return nil
		})
	}
	integer := func(name, usage string, apply func(*Config, int) error) {
		doc(name, "int", usage)
		fs.Func(name, usage, func(s string) error {
			v, err := strconv.Atoi(s)
			if err != nil {
				return fmt.Errorf("not an integer: %q", s)
			}
			o.add(name, func(c *Config) error { return apply(c, v) })
			return nil
		})
	}
	float := func(name, usage string, apply func(*Config, float64) error) {
		doc(name, "float", usage)
		fs.Func(name, usage, func(s string) error {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return fmt.Errorf("not a number: %q", s)
			}
			o.add(name, func(c *Config) error { return apply(c, v) })
			return nil
		})
	}
	boolean := func(name, usage string, apply func(*Config, bool) error) {
		doc(name, "", usage)
		fs.BoolFunc(name, usage, func(s string) error {
			v, err := strconv.ParseBool(s)
			if err != nil {
				return fmt.Errorf("not a boolean: %q", s)
			}
			o.add(name, func(c *Config) error { return apply(c, v) })
			return nil
		})
	}
	ppoOnly := func(c *Config, flagName string) (*rl.PPOConfig, error) {
		if c.PPO == nil {
			return nil, usageErrorf("-%s applies to -algo ppo only (this run is %s)", flagName, c.Algo)
		}
		return c.PPO, nil
	}

	// The run.
	str("name", "run name: outputs go to <out>/<name>/ (default: derived from the settings and the seed)",
		func(c *Config, s string) error { c.Name = s; return nil })
	integer("seed", fmt.Sprintf("run seed: every random stream derives from it (default %d)", d.Seed),
		func(c *Config, v int) error {
			if v < 0 {
				return usageErrorf("-seed must be ≥ 0, got %d", v)
			}
			c.Seed = uint64(v)
			return nil
		})
	str("task", fmt.Sprintf("task setting, any registered name (default %s)", d.Task),
		func(c *Config, s string) error { c.Task = s; return nil })
	str("task-config", `JSON overrides of the task's config, e.g. '{"Critiques":"consistent"}'`,
		func(c *Config, s string) error { c.TaskConfig = []byte(s); return nil })
	str("algo", "ppo, grpo or gspo (default ppo)", func(c *Config, s string) error { c.Algo = rl.Algo(s); return nil })
	integer("updates", fmt.Sprintf("RL updates (default %d)", d.Updates),
		func(c *Config, v int) error { c.Updates = v; return nil })

	section = "model"
	str("model", fmt.Sprintf("model preset: tiny, small or base (default %s)", d.Model.Preset),
		func(c *Config, s string) error { c.Model.Preset = s; return nil })
	str("init", "start from this policy checkpoint (e.g. runs/x/checkpoints/base.safetensors); turns SFT off unless -sft-demos is given",
		func(c *Config, s string) error { c.Model.Init = s; return nil })
	str("critic", fmt.Sprintf("PPO critic: separate or shared (default %s)", dp.Critic.Mode),
		func(c *Config, s string) error {
			p, err := ppoOnly(c, "critic")
			if err == nil {
				p.Critic.Mode = s
			}
			return err
		})

	section = "update"
	integer("group", "GRPO/GSPO rollouts per prompt (default 5); the prompts per update stay unless -episodes is given",
		func(c *Config, v int) error {
			if c.GRPO == nil {
				return usageErrorf("-group applies to -algo grpo or gspo only")
			}
			c.GRPO.GroupSize = v
			return nil
		})
	integer("episodes", fmt.Sprintf("rollouts per update (default %d; GRPO/GSPO: prompts × group, a multiple of the group)", dp.Episodes),
		func(c *Config, v int) error {
			if c.PPO != nil {
				c.PPO.Episodes = v
				return nil
			}
			g := c.GRPO.GroupSize
			if g < 1 || v < 1 || v%g != 0 {
				return usageErrorf("-episodes %d must be a positive multiple of the group size %d", v, g)
			}
			c.GRPO.Prompts = v / g
			return nil
		})
	integer("instances", "cycle through the first N train instances (0: fresh instances every update)",
		func(c *Config, v int) error { *c.Instances() = v; return nil })
	integer("minibatch", fmt.Sprintf("trajectories per minibatch (default %d)", dp.Policy.MiniBatch),
		func(c *Config, v int) error { c.Policy().MiniBatch = v; return nil })
	integer("epochs", fmt.Sprintf("passes over each update's batch (default %d)", dp.Policy.Epochs),
		func(c *Config, v int) error { c.Policy().Epochs = v; return nil })
	float("lr", fmt.Sprintf("policy learning rate (default %g)", dp.Policy.Optim.LR),
		func(c *Config, v float64) error { c.Policy().Optim.LR = v; return nil })
	float("critic-lr", fmt.Sprintf("separate critic's learning rate (default %g)", dp.Critic.Optim.LR),
		func(c *Config, v float64) error {
			p, err := ppoOnly(c, "critic-lr")
			if err == nil {
				p.Critic.Optim.LR = v
			}
			return err
		})
	float("entropy", "entropy bonus coefficient (default 0)",
		func(c *Config, v float64) error { c.Policy().EntropyCoef = v; return nil })
	float("kl", "coefficient of the KL to the initial policy (default 0: off)",
		func(c *Config, v float64) error { c.Policy().KLCoef = v; return nil })
	integer("workers", "rollout goroutines (0: one per CPU; results do not depend on it)",
		func(c *Config, v int) error { c.Rollout().Workers = v; return nil })

	section = "AREW"
	da := dp.Advantage.AREW
	str("arew", fmt.Sprintf("critiques feeding the AREW margin: none, as, bt or as+bt (default %s)", da.Critiques),
		func(c *Config, s string) error {
			if !slices.Contains(rl.CritiqueKinds, s) {
				return usageErrorf("-arew must be one of %s, got %q", strings.Join(rl.CritiqueKinds, ", "), s)
			}
			c.Advantage().AREW.Critiques = s
			return nil
		})
	float("lambda", fmt.Sprintf("AREW λ (default %g)", da.Lambda),
		func(c *Config, v float64) error { c.Advantage().AREW.Lambda = v; return nil })
	str("mode", fmt.Sprintf("AREW margin mode: step, step_spread, minority_fixed or abs_sum (default %s)", da.Mode),
		func(c *Config, s string) error { c.Advantage().AREW.Mode = s; return nil })
	integer("arew-start", "first update (0-based) with the AREW correction (default 0)",
		func(c *Config, v int) error { c.Advantage().AREW.Start = v; return nil })
	integer("arew-end", "update at which the AREW correction stops (default 0: never)",
		func(c *Config, v int) error { c.Advantage().AREW.End = v; return nil })
	boolean("arew-separate", "separate AS and BT margins (the PE prototype's form)",
		func(c *Config, v bool) error { c.Advantage().AREW.Separate = v; return nil })
	float("flip", "flip each critique with probability α (robustness study; default 0)",
		func(c *Config, v float64) error { c.Advantage().AREW.Perturb.Flip = v; return nil })

	section = "SFT warm start"
	ds := d.SFT
	integer("sft-demos", fmt.Sprintf("SFT demonstrations from the train split (0: no warm start; default %d)", ds.Demos),
		func(c *Config, v int) error { c.SFT.Demos = v; return nil })
	integer("sft-test-demos", fmt.Sprintf("held-out demonstrations for the SFT test loss (default %d)", ds.TestDemos),
		func(c *Config, v int) error { c.SFT.TestDemos = v; return nil })
	str("demonstrator", fmt.Sprintf("scripted policy SFT imitates: weak, strong, random or constant (default %s)", ds.Demonstrator.Kind),
		func(c *Config, s string) error { c.SFT.Demonstrator.Kind = s; return nil })
	float("qas", fmt.Sprintf("weak demonstrator: probability of an informative query (default %g)", ds.Demonstrator.QAS),
		func(c *Config, v float64) error { c.SFT.Demonstrator.QAS = v; return nil })
	float("qbt", fmt.Sprintf("weak demonstrator: probability that a belief follows the evidence (default %g)", ds.Demonstrator.QBT),
		func(c *Config, v float64) error { c.SFT.Demonstrator.QBT = v; return nil })
	integer("sft-epochs", fmt.Sprintf("SFT epochs (default %d)", ds.Train.Epochs),
		func(c *Config, v int) error { c.SFT.Train.Epochs = v; return nil })
	integer("sft-minibatch", fmt.Sprintf("SFT minibatch (default %d)", ds.Train.MiniBatch),
		func(c *Config, v int) error { c.SFT.Train.MiniBatch = v; return nil })
	float("sft-lr", fmt.Sprintf("SFT learning rate (default %g)", ds.Train.Optim.LR),
		func(c *Config, v float64) error { c.SFT.Train.Optim.LR = v; return nil })

	section = "evaluation"
	integer("eval-every", fmt.Sprintf("evaluate (and checkpoint) every K updates (0: only before and after RL; default %d)", d.Eval.Every),
		func(c *Config, v int) error { c.Eval.Every = v; return nil })
	integer("eval-episodes", fmt.Sprintf("validation instances per evaluation (default %d)", d.Eval.Episodes),
		func(c *Config, v int) error { c.Eval.Episodes = v; return nil })
	str("eval-modes", fmt.Sprintf("greedy, sampled or both (default %s)", d.Eval.Modes),
		func(c *Config, s string) error { c.Eval.Modes = s; return nil })
	boolean("baselines", "evaluate the task's scripted policies for report.md (default true)",
		func(c *Config, v bool) error { c.Eval.Baselines = v; return nil })

	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(stderr, docs)
			return inv, err
		}
		if name := undefinedFlag(err); name != "" {
			if near := nearestFlag(fs, name); near != "" {
				return inv, usageErrorf("%v: did you mean -%s? (-h lists the flags)", err, near)
			}
		}
		return inv, usageErrorf("%v (-h lists the flags)", err)
	}
	if fs.NArg() > 0 {
		return inv, usageErrorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if inv.study != "" && inv.buildBase != "" {
		return inv, usageErrorf("-study and -build-base are two different jobs: give one")
	}
	if inv.act != "" {
		return actInvocation(inv, o, *configPath)
	}
	if inv.resume != "" {
		return resumeInvocation(inv, o, *configPath)
	}
	if inv.study == "" && inv.buildBase == "" && inv.studyConfig == "" && len(o.set) == 0 && *configPath == "" {
		inv.study = "default" // -out and -force alone still mean the main job
	}
	if inv.study != "" || inv.buildBase != "" {
		return studyInvocation(inv, o, *configPath)
	}
	if inv.studyConfig != "" {
		return inv, usageErrorf("-study-config goes with -study")
	}
	if *configPath == "" {
		for _, name := range o.order {
			if _, ok := o.set[name]; ok {
				inv.runFlags = append(inv.runFlags, "-"+name)
			}
		}
	}

	// The base: the file decoded onto the defaults of its algo (or of
	// -algo's), or the defaults.
	var algo rl.Algo
	if apply, ok := o.set["algo"]; ok {
		var probe Config
		_ = apply(&probe)
		var err error
		if algo, err = rl.ParseAlgo(string(probe.Algo)); err != nil {
			return inv, usageErrorf("-%v", err)
		}
	}
	var cfg Config
	if *configPath != "" {
		var err error
		if cfg, err = experiment.ReadConfig(*configPath, algo); err != nil {
			return inv, usageErrorf("-config: %v", err)
		}
	} else {
		if algo == "" {
			algo = experiment.DefaultAlgo
		}
		cfg = experiment.DefaultConfig(algo)
	}
	if apply, ok := o.set["algo"]; ok {
		_ = apply(&cfg)
	}
	if err := cfg.Normalise(); err != nil {
		return inv, err
	}
	for _, name := range o.order {
		if apply, ok := o.set[name]; ok && name != "algo" {
			if err := apply(&cfg); err != nil {
				return inv, err
			}
		}
	}
	if _, initSet := o.set["init"]; initSet {
		if _, demosSet := o.set["sft-demos"]; !demosSet && cfg.SFT.Demos > 0 {
			cfg.SFT.Demos = 0
			inv.sftFromInit = true
		}
	}
	if err := cfg.Normalise(); err != nil {
		return inv, err
	}
	if cfg.Name == "" {
		cfg.Name = cfg.DefaultName()
	}
	if err := cfg.Validate(); err != nil {
		return inv, err
	}
	inv.cfg = cfg
	return inv, nil
}

// flagDoc is one flag's line of the usage text.
type flagDoc struct{ section, name, kind, usage string }

func printUsage(w io.Writer, docs []flagDoc) {
	fmt.Fprint(w, `Usage: go run ./cmd/train [flags]

With no flags (or only -out and -force), runs the study preset
"default": vanilla PPO and AREW from the shipped locked base, one seed,
and the comparison table.
With run flags, runs one experiment (SFT warm start, evaluation of the
base, RL with evaluations, final evaluation) and writes <out>/<name>/:
config.json, sft.jsonl, metrics.jsonl, eval.jsonl, samples.jsonl,
checkpoints/, report.md. Flags override the -config file. Exit status:
0 done, 1 failure, 2 bad input, 130 interrupted (checkpoint and report
written; -resume <out>/<name> continues).

  -config string        a run's config.json (or any subset of it) to start from;
                        repeat a run: -config runs/<name>/config.json -name <new>
  -out string           folder holding the run folders (default "runs")
  -force                replace the run folder if it exists and is not empty
  -study string         run a study preset instead of one run (presets: `+strings.Join(study.PresetNames(), ", ")+`):
                        its arms × seeds from one base, into <out>/<name>/
                        (summary.json, report.md, plots/, <arm>/seed-<s>/);
                        takes only -out, -force, -name (the study's folder),
                        -init (its base checkpoint), -study-config
  -study-config string  JSON decoded onto the preset, inline or a file: a
                        study's study.json repeats it; '{"seeds": [1, 2, 3]}'
                        varies it
  -resume folder        continue a study or a run in its folder, alone:
                        a study (study.json) keeps its complete runs and redoes
                        the others; a run (config.json) goes on from its last
                        checkpoint to its updates, bitwise as if never stopped,
                        appending to its logs; with -updates N, to N updates
  -build-base string    rebuild a shipped base (`+strings.Join(study.BaseNames(), ", ")+`) into
                        <out>/<name>/ and evaluate it under each of its styles
                        beside the scripted policies (base.md, base.json);
                        says whether it is byte for byte the shipped file
  -act string           run an ACT preset (rl/act; presets: `+strings.Join(act.StudyPresetNames(), ", ")+`):
                        the pipeline's rows × environments × seeds into <out>/<name>/
                        (summary.json, report.md, plots/, <env>/seed-<s>/);
                        takes only -out, -force, -name
`)
	last := ""
	for _, d := range docs {
		if d.section != last {
			fmt.Fprintf(w, "\n%s:\n", d.section)
			last = d.section
		}
		fmt.Fprintf(w, "  -%-20s %s\n", strings.TrimSpace(d.name+" "+d.kind), d.usage)
	}
}

package main

import (
	"errors"
	"flag"
	"io"
	"strings"

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

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"arew/rl"
	"arew/rl/act"
	arewrun "arew/rl/run"
	"arew/rl/study"
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
	// study's (act.ResumeStudy); resumeUpdates is a run's new number of
	// updates (-updates), or −1.
	resumeStudy, resumeACT bool
	resumeUpdates          int
	// buildBase names a shipped base (rl/study.Bases) to rebuild and
	// evaluate instead of a run.
	buildBase string
	// act names an ACT study preset (rl/act.StudyPreset) to run instead.
	act string
	// capability names a capability recipe (rl/study.Capabilities) to
	// train and evaluate instead.
	capability string
	// cache is a result cache's folder for a study's or an ACT study's
	// runs (run.Cache; "": none).
	cache string
	// runFlags are the run flags given without -config: the command runs
	// one experiment instead of the default study, and says so.
	runFlags []string
}

// jobs are the flags that name a job other than one run, each with the
// flags it takes (-resume's depend on its folder: resumeInvocation); a
// command line names one job at most. One run takes -config, -out, -force
// and the run flags.
var jobs = []struct {
	flag  string
	takes []string
}{
	{"study", []string{"out", "force", "name", "init", "study-config", "cache"}},
	{"build-base", []string{"out", "force", "name"}},
	{"act", []string{"out", "force", "name", "cache"}},
	{"capability", []string{"out", "force", "name"}},
	{"resume", nil},
}

// refused are the flags given that a job does not take, sorted, each
// with its dash.
func refused(given map[string]bool, job string, takes ...string) []string {
	var bad []string
	for name := range given {
		if name != job && !slices.Contains(takes, name) {
			bad = append(bad, "-"+name)
		}
	}
	slices.Sort(bad)
	return bad
}

// takesOnly is a usage error naming the flags given that job does not
// take, or nil.
func takesOnly(given map[string]bool, job string, takes []string) error {
	bad := refused(given, job, takes...)
	if len(bad) == 0 {
		return nil
	}
	list := make([]string, len(takes))
	for i, t := range takes {
		list[i] = "-" + t
	}
	return arewrun.InputErrorf("-%s takes only %s and %s; got %s", job,
		strings.Join(list[:len(list)-1], ", "), list[len(list)-1], strings.Join(bad, ", "))
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
	fs.StringVar(&inv.cache, "cache", "", "")

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
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	return route(inv, o, given, *configPath)
}

// route sends a parsed command line to its job (jobs): at most one job
// flag, the flags it takes; with none, one run (run flags or -config), or
// the default study when only -out and -force are given.
func route(inv invocation, o *overrides, given map[string]bool, configPath string) (invocation, error) {
	job := ""
	for _, j := range jobs {
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
	case job == "act":
		return actInvocation(inv, o)
	case job == "resume":
		return resumeInvocation(inv, o, given)
	case job == "" && len(o.set) == 0 && configPath == "" && !given["study-config"]:
		inv.study = "default" // -out, -force and -cache alone still mean the main job
		fallthrough
	case job == "study" || job == "build-base":
		return studyInvocation(inv, o)
	case given["study-config"]:
		return inv, arewrun.InputErrorf("-study-config goes with -study")
	case given["cache"]:
		return inv, arewrun.InputErrorf("-cache goes with -study, -act or a study's -resume")
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
                        -init (its base checkpoint), -study-config, -cache
  -study-config string  JSON decoded onto the preset, inline or a file: a
                        study's study.json repeats it; '{"seeds": [1, 2, 3]}'
                        varies it
  -cache folder         a result cache of study runs (off by default): a run of
                        -study, -act or a study's -resume that the cache holds
                        with the same config, seed and code (a clean commit) is
                        copied from it instead of run; every run made is stored
  -resume folder        continue a study or a run in its folder (a study: with -cache):
                        a study (study.json) keeps its complete runs and goes
                        on with the others from their last checkpoints (an
                        ACT study does its others again); a run
                        (config.json) goes on from its last checkpoint to its
                        updates; both bitwise as if never stopped, appending
                        to the logs; a run with -updates N goes to N updates
  -build-base string    rebuild a shipped base (`+strings.Join(study.BaseNames(), ", ")+`) into
                        <out>/<name>/ and evaluate it under each of its styles
                        beside the scripted policies (report.md, summary.json);
                        says whether it is byte for byte the shipped file
  -capability string    train the plain policy by SFT on a setting's strong
                        demonstrations (`+strings.Join(study.CapabilityNames(), ", ")+`)
                        into <out>/capability-<name>/ and evaluate it beside
                        the strong policy on 500 validation instances
  -act string           run an ACT preset (rl/act; presets: `+strings.Join(act.StudyPresetNames(), ", ")+`):
                        the pipeline's rows × environments × seeds into <out>/<name>/
                        (summary.json, report.md, plots/, <env>/seed-<s>/);
                        takes only -out, -force, -name, -cache
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

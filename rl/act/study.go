package act

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"arew/rl/run"
)

// A study is what cmd/train -act runs: pipeline runs (Run) over
// environments × seeds, the ACT table of docs/act.md §4 (mean ± std over
// the seeds, the published numbers beside) or the cross-size transfer,
// with summary.json, report.md, plots and every run's own files.

// Study kinds.
const (
	KindTable1   = "table1"   // the rows × ALFWorld ID, ALFWorld OOD, WebShop, ScienceWorld
	KindTransfer = "transfer" // D_critic of Source's preset reused by Runs[0]'s
)

// StudyConfig is one study: Runs are the pipeline configs (one per
// environment for table1; the target for transfer), each run once per
// seed (Config.Seed and the stages' seeds set from it).
type StudyConfig struct {
	Name  string   `json:"name"`
	Kind  string   `json:"kind"`
	Seeds []uint64 `json:"seeds"`
	Runs  []Config `json:"runs"`
	// Source (transfer): the preset whose π_θ0 samples D_critic; its
	// environment and games are the target's.
	Source *Config `json:"source,omitempty"`
	// Expect is the run time measured on two shared cores, for the report.
	Expect string `json:"expect,omitempty"`
}

// Validate reports the first bad field.
func (s StudyConfig) Validate() error {
	if err := run.ValidName("act study name", s.Name); err != nil {
		return err
	}
	if len(s.Seeds) == 0 || len(s.Runs) == 0 {
		return fmt.Errorf("act study %s: needs seeds and runs", s.Name)
	}
	if x, ok := run.Repeated(s.Seeds); ok {
		return fmt.Errorf("act study %s: seed %d repeated", s.Name, x)
	}
	switch s.Kind {
	case KindTable1:
		var envs []string
		for _, r := range s.Runs {
			envs = append(envs, r.Env)
		}
		if e, ok := run.Repeated(envs); ok {
			return fmt.Errorf("act study %s: environment %s twice", s.Name, e)
		}
	case KindTransfer:
		if s.Source == nil || len(s.Runs) != 1 {
			return fmt.Errorf("act study %s: a transfer needs a source and one target run", s.Name)
		}
		if err := s.Source.Validate(); err != nil {
			return fmt.Errorf("act study %s source: %w", s.Name, err)
		}
	default:
		return fmt.Errorf("act study %s: kind must be %s or %s, got %q", s.Name, KindTable1, KindTransfer, s.Kind)
	}
	for _, r := range s.Runs {
		if err := r.Validate(); err != nil {
			return fmt.Errorf("act study %s: %w", s.Name, err)
		}
	}
	return nil
}

// seeded is cfg for one seed: the model, π_θ0's draw, the critic samples
// and the GRPO stages all follow it; Dir is dir.
func seeded(cfg Config, seed uint64, dir string) Config {
	cfg.Seed, cfg.Collect.Seed, cfg.Dir = seed, seed, dir
	cfg.Init.Seed, cfg.IL.Seed = seed, seed
	cfg.ACT.GRPO.Seed, cfg.RL.GRPO.Seed = seed, seed
	return cfg
}

// job is one pipeline run of a study: the group its report joins (the
// environment, or a transfer's arm), its folder, how it runs, and its
// config for a result cache (run.Cell.Config: the run's with no folder,
// a transfer's with its source's; nil: a run that reads another file).
type job struct {
	label, group, dir string
	run               func(context.Context) (*Report, error)
	config            any
}

// jobs are the runs of cfg in dir, seed by seed: <dir>/<env>/seed-<s>/,
// or for a transfer <dir>/own/seed-<s>/ and <dir>/transfer/seed-<s>/.
func jobs(cfg StudyConfig, dir string) []job {
	var out []job
	for _, seed := range cfg.Seeds {
		at := func(group string) string { return filepath.Join(dir, group, fmt.Sprintf("seed-%d", seed)) }
		for _, r := range cfg.Runs {
			if cfg.Kind == KindTable1 {
				c := seeded(r, seed, at(r.Env))
				out = append(out, job{fmt.Sprintf("%s seed %d", r.Env, seed), r.Env, c.Dir,
					func(ctx context.Context) (*Report, error) { return Run(ctx, c) }, cacheConfig(c)})
				continue
			}
			own, tr, src := seeded(r, seed, at(ArmOwn)), seeded(r, seed, at(ArmTransfer)), seeded(*cfg.Source, seed, "")
			out = append(out,
				job{fmt.Sprintf("%s %s own data, seed %d", r.Env, r.Preset, seed), ArmOwn, own.Dir,
					func(ctx context.Context) (*Report, error) { return Run(ctx, own) }, cacheConfig(own)},
				job{fmt.Sprintf("%s %s on %s's data, seed %d", r.Env, r.Preset, src.Preset, seed), ArmTransfer, tr.Dir,
					func(ctx context.Context) (*Report, error) { return Transfer(ctx, src, tr) },
					cacheConfig(tr, src)})
		}
	}
	return out
}

// cacheConfig is a job's configs as a result cache keys it (one run's, or
// a transfer's target and source): without their folders; nil (not
// cached) when one reads D_critic from a file.
func cacheConfig(cs ...Config) any {
	for i := range cs {
		if cs[i].CriticFrom != "" {
			return nil
		}
		cs[i].Dir = ""
	}
	if len(cs) == 1 {
		return cs[0]
	}
	return cs
}

// RunStudy runs the jobs of cfg into dir, which must not exist or be
// empty, as one run.Sweep (study.json, provenance.json, console.log), then
// writes summary.json, report.md and plots/. Progress lines go to out.
// The context is checked inside every stage; once it ends the study
// stops with run.ErrInterrupted, keeping the runs it finished.
func RunStudy(ctx context.Context, cfg StudyConfig, dir string, out io.Writer) (*Summary, error) {
	return sweepStudy(ctx, cfg, dir, out, false)
}

// ResumeStudy continues the study of cfg in dir, which must hold its
// study.json (the same config): a run whose report.json an earlier
// attempt wrote is kept, every other is done again from an empty folder.
func ResumeStudy(ctx context.Context, cfg StudyConfig, dir string, out io.Writer) (*Summary, error) {
	return sweepStudy(ctx, cfg, dir, out, true)
}

func sweepStudy(ctx context.Context, cfg StudyConfig, dir string, out io.Writer, resume bool) (*Summary, error) {
	if err := cfg.Validate(); err != nil {
		return nil, run.InputErr(err)
	}
	js := jobs(cfg, dir)
	reps := make([]*Report, len(js))
	sum := &Summary{Name: cfg.Name, Kind: cfg.Kind, Seeds: cfg.Seeds}
	sw := &run.Sweep{Kind: "act study", Dir: dir, Config: cfg, Steps: 1, Out: out,
		Header: fmt.Sprintf("== act study %s → %s: %d runs (%s)", cfg.Name, dir, len(js), cfg.Kind),
		Finish: func(string, []run.Provenance) error {
			*sum = *summarize(cfg, js, reps)
			return sum.write(dir)
		}}
	if err := sw.Open(resume); err != nil {
		return nil, err
	}
	for i, j := range js {
		if resume {
			rep, err := readReport(j.dir)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, run.InputErrorf("act study: resume: %v", err)
			}
			reps[i] = rep
		}
		sw.Cells = append(sw.Cells, run.Cell{Key: j.label, Dir: j.dir, Kept: reps[i] != nil,
			Run: func(ctx context.Context, p *run.Progress, _ bool) error {
				rep, err := j.run(WithStageLog(ctx, p.Line))
				p.Locked(func() { reps[i] = rep })
				return err
			},
			Config: func() (any, error) { return j.config, nil },
			Restore: func() error {
				var err error
				reps[i], err = readReport(j.dir)
				return err
			}})
	}
	err := sw.Run(ctx)
	return sum, err
}

// summarize is the summary of the runs of js that have a report; its
// run time is the sum of theirs.
func summarize(cfg StudyConfig, js []job, reps []*Report) *Summary {
	sum := &Summary{Name: cfg.Name, Kind: cfg.Kind, Seeds: cfg.Seeds}
	for i, j := range js {
		if reps[i] != nil {
			sum.Seconds += reps[i].Seconds
			sum.add(j.group, reps[i])
		}
	}
	sum.finish(cfg)
	return sum
}

// readReport reads a run's report.json.
func readReport(dir string) (*Report, error) {
	var rep Report
	if err := run.ReadJSON(filepath.Join(dir, "report.json"), run.MaxSummaryBytes, &rep); err != nil {
		return nil, err
	}
	return &rep, nil
}

// studyPresets are the presets of cmd/train -act.
var studyPresets = map[string]func() StudyConfig{
	"act-table1":         Table1Preset,
	"act-alfworld":       ALFWorldPreset,
	"act-alfworld-kl":    ALFWorldKLPreset,
	"act-transfer":       TransferPreset,
	"act-smoke":          SmokeStudy,
	"act-transfer-smoke": TransferSmokeStudy,
}

// StudyPreset returns the named preset.
func StudyPreset(name string) (StudyConfig, error) {
	return run.LookupPreset("ACT", studyPresets, name)
}

// StudyPresetNames lists the presets, sorted.
func StudyPresetNames() []string { return run.PresetNames(studyPresets) }

// Summarize rebuilds summary.json, report.md and plots/ of the study in
// dir from its study.json and its runs' report.json files (a study
// stopped partway, or one written by an earlier version of the report).
// Unlike a resume it runs nothing (a run without its report.json is left
// out of the table) and leaves provenance.json and console.log alone: it
// is how a committed study's table is made, partway or again after the
// report changes (docs/results/act-table1).
func Summarize(dir string) (*Summary, error) {
	var cfg StudyConfig
	if err := run.ReadJSON(filepath.Join(dir, run.SweepFile), run.MaxSummaryBytes, &cfg); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	js := jobs(cfg, dir)
	reps := make([]*Report, len(js))
	for i, j := range js {
		rep, err := readReport(j.dir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		reps[i] = rep
	}
	sum := summarize(cfg, js, reps)
	return sum, sum.write(dir)
}

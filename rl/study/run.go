package study

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"time"

	"arew/model"
	"arew/rl"
	"arew/rl/run"
	"arew/tasks"
)

// The files of a study folder (doc.go), beside the sweep's (run.Sweep:
// study.json, provenance.json, console.log).
const (
	SummaryFile = "summary.json"
	ReportFile  = "report.md"
	BaseFile    = "base.safetensors"
	BaseSFTFile = "base-sft.jsonl"
	PlotsDir    = "plots"
)

// study is one Run in progress.
type study struct {
	cfg     Config
	dir     string
	task    tasks.Task            // the study's task (baselines, transcripts)
	armTask map[string]tasks.Task // each arm's, with its task config
	base    string                // the base checkpoint every run loads
	out     io.Writer             // the sweep's console, once it runs
	sum     *Summary
	start   time.Time
	// runs holds each cell's summary (arm × seed, in the sweep's order),
	// nil until it ran; a resume fills in the complete ones.
	runs []*RunSum

	afterUpdate func(arm string, seed uint64, done int)
	// samples holds, per arm, the transcripts of the latest sampled
	// evaluation of the first seed, for the report.
	samples map[string][]run.Sample
}

// Run runs every arm × seed of cfg, one after another, into dir (which
// must not exist or be empty), and returns the summary it wrote. Progress
// and one line per evaluation go to progress (nil: none). When ctx is
// cancelled the current run stops after its update, and the summary,
// report and plots of what was done are written; Run then returns
// run.ErrInterrupted.
func Run(ctx context.Context, cfg Config, dir string, progressOut io.Writer) (*Summary, error) {
	return runStudy(ctx, cfg, dir, progressOut, false, nil)
}

// Resume continues the study of cfg in dir, which must hold its
// study.json (the same config): the runs its summary.json lists as
// complete are kept, a run cut short continues from its checkpoint set
// (saved at its last in-training evaluation, or where an interrupt
// stopped it), every other run is done again from the start, and a base
// the study built is reused. The result is bit for bit what one
// uninterrupted Run would have written, wall times aside
// (TestResumeContinuesACutRunBitwise).
func Resume(ctx context.Context, cfg Config, dir string, progressOut io.Writer) (*Summary, error) {
	return runStudy(ctx, cfg, dir, progressOut, true, nil)
}

// runStudy is Run (or Resume) with a hook called after every update
// (tests).
func runStudy(ctx context.Context, cfg Config, dir string, progressOut io.Writer, resume bool,
	afterUpdate func(arm string, seed uint64, done int)) (*Summary, error) {
	if err := cfg.Validate(); err != nil {
		return nil, run.InputErr(err)
	}
	task, err := tasks.New(cfg.Task, cfg.TaskConfig)
	if err != nil {
		return nil, run.InputErr(fmt.Errorf("study: %w", err))
	}
	s := &study{cfg: cfg, dir: dir, task: task, armTask: map[string]tasks.Task{}, start: time.Now(),
		sum: newSummary(cfg), afterUpdate: afterUpdate}
	for _, a := range cfg.Arms {
		if s.armTask[a.Name], err = armTask(cfg, a, task); err != nil {
			return nil, run.InputErr(err)
		}
	}
	if err := s.loadBase(); err != nil {
		return nil, run.InputErr(err)
	}
	sw := &run.Sweep{Kind: "study", Dir: dir, Config: cfg, Steps: cfg.Updates, Out: progressOut,
		Header: fmt.Sprintf("== study %s → %s: %d arms × %d seeds × %d updates on %s (%s)",
			cfg.Name, dir, len(cfg.Arms), len(cfg.Seeds), cfg.Updates, cfg.Task, cfg.Algo),
		Continue: run.ContinuesRL, Start: s.prepare, Save: s.saveSummary, Finish: s.finish}
	if err := sw.Open(resume); err != nil {
		return nil, err
	}
	var done map[string]map[uint64]RunSum
	if resume {
		if done, err = s.loadPrevious(); err != nil {
			return nil, err
		}
	}
	// Seed by seed, every arm of a seed before the next seed, so that a
	// study stopped early holds complete comparisons.
	for _, seed := range cfg.Seeds {
		for _, arm := range cfg.Arms {
			r, kept := done[arm.Name][seed]
			i := len(sw.Cells)
			s.runs = append(s.runs, nil)
			if kept {
				s.runs[i] = &r
			}
			cellDir := filepath.Join(dir, arm.Name, runName(seed))
			sw.Cells = append(sw.Cells, run.Cell{Key: fmt.Sprintf("%s seed %d", arm.Name, seed), Dir: cellDir, Kept: kept,
				Run: func(ctx context.Context, p *run.Progress, cont bool) error {
					r, err := s.runOne(ctx, arm, seed, p, cont)
					p.Locked(func() { s.runs[i] = r }) // the summary reads every run's
					return err
				},
				Config: func() (any, error) {
					rc, err := s.cfg.runConfig(arm, seed, s.base)
					if err != nil {
						return nil, err
					}
					return rc.ForCache()
				},
				Restore: func() error {
					l, err := run.Finished(cellDir)
					if err == nil {
						s.runs[i] = s.sumUp(l, arm.Name, seed, "complete")
					}
					return err
				}})
		}
	}
	err = sw.Run(ctx)
	return s.sum, err
}

// armTask is the task of arm: the study's own when the arm changes
// nothing of it.
func armTask(cfg Config, a Arm, study tasks.Task) (tasks.Task, error) {
	if isEmptyJSON(a.TaskConfig) {
		return study, nil
	}
	raw, err := mergeObjects(cfg.TaskConfig, a.TaskConfig)
	if err != nil {
		return nil, fmt.Errorf("study: arm %s: task_config: %w", a.Name, err)
	}
	t, err := tasks.New(cfg.Task, raw)
	if err != nil {
		return nil, fmt.Errorf("study: arm %s: %w", a.Name, err)
	}
	if err := sameObservations(study, t); err != nil {
		return nil, fmt.Errorf("study: arm %s: its task_config changes what the agent sees (%v); "+
			"every arm is evaluated on the study's task, so an arm may change only what trains it (e.g. Critiques)", a.Name, err)
	}
	return t, nil
}

// observationProbes is how many validation episodes sameObservations plays.
const observationProbes = 4

// sameObservations checks that two variants of a task show an agent the
// same tokens: the random scripted policy plays the first validation
// instances on both with the same random stream, and every token of the
// two trajectories must agree.
func sameObservations(a, b tasks.Task) error {
	if !slices.Equal(a.Vocab().Words(), b.Vocab().Words()) {
		return fmt.Errorf("another vocabulary")
	}
	for i := range observationProbes {
		var toks [2][]int32
		for k, t := range []tasks.Task{a, b} {
			pol, err := t.Scripted(tasks.PolicySpec{Kind: "random"})
			if err != nil {
				return err
			}
			tr, err := rl.PlayScripted(t, pol, tasks.Val, i, rand.New(rand.NewPCG(uint64(i), 0)))
			if err != nil {
				return err
			}
			toks[k] = tr.Tokens
		}
		if !slices.Equal(toks[0], toks[1]) {
			return fmt.Errorf("validation instance %d plays differently", i)
		}
	}
	return nil
}

// prepare is the sweep's start: the scripted baselines, then the base in
// the folder (shipped, or built unless a resumed study built it).
func (s *study) prepare(ctx context.Context, out io.Writer) error {
	s.out = out
	var err error
	if s.sum.Baselines, err = scriptedBaselines(ctx, s.task, s.cfg, s.cfg.Eval.split(), s.cfg.Eval.Episodes); err != nil {
		return err
	}
	if n := s.cfg.Eval.Test; n > 0 {
		if s.sum.TestBaselines, err = scriptedBaselines(ctx, s.task, s.cfg, tasks.Test, n); err != nil {
			return err
		}
	}
	if err := s.placeBase(); err != nil {
		return err
	}
	if s.base == "" {
		return s.buildBase(ctx)
	}
	return nil
}

// collect puts the runs done so far into the summary, each arm's in seed
// order.
func (s *study) collect() {
	for _, a := range s.sum.Arms {
		a.Runs = []RunSum{}
	}
	for i, r := range s.runs {
		if r != nil {
			a := s.sum.Arms[s.cfg.Arms[i%len(s.cfg.Arms)].Name]
			a.Runs = append(a.Runs, *r)
		}
	}
}

// saveSummary writes summary.json with the runs done so far.
func (s *study) saveSummary() error {
	s.collect()
	return run.WriteJSON(filepath.Join(s.dir, SummaryFile), s.sum)
}

// finish writes summary.json, the plots and report.md with the study's
// status.
func (s *study) finish(status string, attempts []run.Provenance) error {
	s.sum.Status = status
	if err := s.saveSummary(); err != nil {
		return err
	}
	plots, err := writePlots(s.sum, filepath.Join(s.dir, PlotsDir))
	if err != nil {
		return err
	}
	return run.WriteFile(filepath.Join(s.dir, ReportFile), []byte(report(s.cfg, s.sum, plots, s.samples, time.Since(s.start), attempts)))
}

// fits checks that a policy can play the task with the study's rollouts
// and, with a shared critic, has a value head.
func (s *study) fits(p *model.Model) error {
	if s.cfg.PPO != nil && s.cfg.PPO.Critic.Mode == rl.CriticShared && !p.Config.ValueHead {
		return fmt.Errorf("a shared critic needs a policy with a value head; this one has none")
	}
	_, err := rl.NewRoller(p, s.task, *s.cfg.Rollout())
	return err
}

func newSummary(c Config) *Summary {
	s := &Summary{Name: c.Name, Task: c.Task, Algo: string(c.Algo), Updates: c.Updates, Episodes: c.Eval.Episodes, Modes: c.Eval.Modes,
		Split: c.Eval.split().String(), Test: c.Eval.Test,
		Thresholds: c.thresholds(), Status: "running", Arms: map[string]*ArmSum{}, Baselines: []run.Baseline{}}
	for _, a := range c.Arms {
		s.ArmOrder = append(s.ArmOrder, a.Name)
		s.Arms[a.Name] = &ArmSum{Family: a.Family, AREW: a.AREW, TaskConfig: a.TaskConfig, PPO: a.PPO, GRPO: a.GRPO, Runs: []RunSum{}}
	}
	return s
}

// thresholds are Eval.Thresholds, or DefaultThresholds when none are set.
func (c *Config) thresholds() []float64 {
	if len(c.Eval.Thresholds) == 0 {
		return DefaultThresholds
	}
	return c.Eval.Thresholds
}

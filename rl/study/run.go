package study

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"

	"arew/model"
	"arew/rl"
	"arew/rl/progress"
	"arew/rl/run"
	"arew/tasks"
)

// The files of a study folder (doc.go).
const (
	StudyFile   = "study.json"
	SummaryFile = "summary.json"
	ReportFile  = "report.md"
	BaseFile    = "base.safetensors"
	BaseSFTFile = "base-sft.jsonl"
	ConsoleFile = "console.log" // what the study printed, every attempt, without status lines
	PlotsDir    = "plots"
)

// study is one Run in progress.
type study struct {
	cfg     Config
	dir     string
	task    tasks.Task            // the study's task (baselines, transcripts)
	armTask map[string]tasks.Task // each arm's, with its task config
	base    string                // the base checkpoint every run loads
	meter   *progress.Meter
	out     io.Writer
	sum     *Summary
	start   time.Time
	updates int // RL updates done over all runs, for the meter
	// done holds the complete runs of the study being resumed, by arm and
	// seed.
	done map[string]map[uint64]RunSum
	// attempts are provenance.json's records, the last this attempt's.
	attempts []run.Provenance
	// partial marks the runs of the study being resumed that stopped
	// short and left a checkpoint set to continue from (resumable).
	partial map[string]map[uint64]bool

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
	if progressOut == nil {
		progressOut = io.Discard
	}
	if err := cfg.Validate(); err != nil {
		return nil, run.InputErr(err)
	}
	task, err := tasks.New(cfg.Task, cfg.TaskConfig)
	if err != nil {
		return nil, run.InputErr(fmt.Errorf("study: %w", err))
	}
	s := &study{cfg: cfg, dir: dir, task: task, armTask: map[string]tasks.Task{}, out: progressOut, start: time.Now(), afterUpdate: afterUpdate}
	for _, a := range cfg.Arms {
		if s.armTask[a.Name], err = armTask(cfg, a, task); err != nil {
			return nil, run.InputErr(err)
		}
	}
	if err := s.loadBase(); err != nil {
		return nil, run.InputErr(err)
	}
	if resume {
		if err := s.loadPrevious(); err != nil {
			return nil, err
		}
	} else {
		if err := run.PrepareDir(dir, false); err != nil {
			return nil, err
		}
		if err := run.WriteJSON(filepath.Join(dir, StudyFile), cfg); err != nil {
			return nil, err
		}
	}
	if s.attempts, err = s.startProvenance(resume); err != nil {
		return nil, err
	}
	console, err := os.OpenFile(filepath.Join(dir, ConsoleFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("study: %w", err)
	}
	defer console.Close()
	s.out = progress.Tee(progressOut, console)
	progressOut = s.out
	s.sum = newSummary(cfg)
	fmt.Fprintf(progressOut, "== study %s → %s: %d arms × %d seeds × %d updates on %s (%s)\n",
		cfg.Name, dir, len(cfg.Arms), len(cfg.Seeds), cfg.Updates, cfg.Task, cfg.Algo)
	err = s.run(ctx)
	switch {
	case errors.Is(err, run.ErrInterrupted):
		s.sum.Status = "interrupted"
	case err != nil:
		s.sum.Status = "failed"
	default:
		s.sum.Status = "complete"
	}
	if s.meter != nil {
		s.meter.Finish()
	}
	if werr := s.writeOutputs(); werr != nil && err == nil {
		err = werr
	}
	s.attempts[len(s.attempts)-1].Finish(time.Now(), time.Since(s.start))
	if werr := run.WriteJSON(filepath.Join(dir, run.ProvenanceFile), s.attempts); werr != nil && err == nil {
		err = werr
	}
	return s.sum, err
}

// startProvenance writes <dir>/provenance.json: the attempts of the study
// so far (a resume appends one), each where and when it ran. It returns
// them, the last one this attempt's, for the end to finish.
func (s *study) startProvenance(resume bool) ([]run.Provenance, error) {
	var attempts []run.Provenance
	path := filepath.Join(s.dir, run.ProvenanceFile)
	if resume {
		if err := run.ReadJSON(path, maxSummaryBytes, &attempts); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, run.InputErr(fmt.Errorf("study: resume: %w", err))
		}
	}
	attempts = append(attempts, run.Collect(s.start))
	return attempts, run.WriteJSON(path, attempts)
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

func (s *study) run(ctx context.Context) error {
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
		if err := s.buildBase(ctx); err != nil {
			return err
		}
	}
	c := s.cfg
	todo := 0
	for _, arm := range c.Arms {
		for _, seed := range c.Seeds {
			if _, ok := s.done[arm.Name][seed]; !ok {
				todo++
			}
		}
	}
	s.meter = progress.New(s.out, "study", todo*c.Updates)
	// Seed by seed, every arm of a seed before the next seed, so that a
	// study stopped early holds complete comparisons.
	for _, seed := range c.Seeds {
		for _, arm := range c.Arms {
			if r, ok := s.done[arm.Name][seed]; ok {
				a := s.sum.Arms[arm.Name]
				a.Runs = append(a.Runs, r)
				s.meter.Printf("%s seed %d: complete in the previous attempt, kept\n", arm.Name, seed)
				continue
			}
			r, err := s.runOne(ctx, arm, seed)
			if r != nil {
				a := s.sum.Arms[arm.Name]
				a.Runs = append(a.Runs, *r)
				if werr := run.WriteJSON(filepath.Join(s.dir, SummaryFile), s.sum); werr != nil && err == nil {
					err = werr
				}
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// writeOutputs writes summary.json, the plots and report.md.
func (s *study) writeOutputs() error {
	if err := run.WriteJSON(filepath.Join(s.dir, SummaryFile), s.sum); err != nil {
		return err
	}
	plots, err := writePlots(s.sum, filepath.Join(s.dir, PlotsDir))
	if err != nil {
		return err
	}
	return run.WriteFile(filepath.Join(s.dir, ReportFile), []byte(report(s.cfg, s.sum, plots, s.samples, time.Since(s.start), s.attempts)))
}

// fits checks that a policy can play the task with the study's rollouts
// and, with a shared critic, has a value head.
func (s *study) fits(p *model.Model) error {
	if s.cfg.PPO != nil && s.cfg.PPO.Critic.Mode == "shared" && !p.Config.ValueHead {
		return fmt.Errorf("a shared critic needs a policy with a value head; this one has none")
	}
	_, err := rl.NewRoller(p, s.task, *s.cfg.algorithm().Rollout())
	return err
}

func newSummary(c Config) *Summary {
	s := &Summary{Name: c.Name, Task: c.Task, Algo: c.Algo, Updates: c.Updates, Episodes: c.Eval.Episodes, Modes: c.Eval.Modes,
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

// algorithm is the study's RL config as rl's front door sees it.
func (c *Config) algorithm() *rl.Algorithm {
	return &rl.Algorithm{Algo: rl.Algo(c.Algo), PPO: c.PPO, GRPO: c.GRPO}
}

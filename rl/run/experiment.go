package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"arew/model"
	"arew/rl"
	"arew/rl/progress"
	"arew/tasks"
)

// Experiment is one run: everything built from the config before any
// work, and what the run has measured so far (for report.md).
type Experiment struct {
	cfg      Config
	dir      string
	out      io.Writer
	task     tasks.Task
	evalTask tasks.Task   // what the evaluations play: task, unless Eval.TaskConfig names another
	demo     tasks.Policy // the SFT demonstrator, or nil
	policy   *model.Model
	modes    []rl.EvalMode // the evaluation modes, parsed once

	// OnUpdate, if set, runs after each RL update has been logged (tests
	// cancel the context from it; a study counts and shows it).
	OnUpdate func(m rl.Metrics)
	// OnEval, if set, runs after each evaluation in one mode has been
	// logged, with the transcripts kept of it.
	OnEval func(r EvalRecord, shown []Sample)

	// resume is the checkpoint set a resumed run continues from (nil: a
	// new run); rlStarted is whether RL has begun (a set written before
	// holds no state to resume).
	resume    *Manifest
	rlStarted bool

	start     time.Time
	status    string
	sftLog    []rl.SFTMetrics
	baselines []Baseline
	// loop is the RL phase (Loop: the updates, the evaluations, the
	// logs and the checkpoint sets); nil before it starts.
	loop  *Loop
	meter *progress.Meter // the phase in progress (SFT, RL), or nil
}

// New prepares the run of cfg (after Normalise and Validate) in
// out/<cfg.Name>/: it builds the task, the demonstrator and the policy,
// derives the model configs into the config, and checks that the run
// folder can be made and that the run fits in memory, so that every user
// error is a InputError before the folder is touched. Progress lines go
// to progressOut.
func New(cfg Config, out string, progressOut io.Writer) (*Experiment, error) {
	e, err := build(cfg, "", progressOut)
	if err != nil {
		return nil, err
	}
	e.dir = filepath.Join(out, cfg.Name)
	if err := checkRun(e, out); err != nil {
		return nil, err
	}
	return e, nil
}

// Resume prepares the continuation of the run in folder dir from its
// checkpoint set, to its configured updates, or to updates if ≥ 0 (a
// finished run extended). Its config.json is the config; the set must
// agree with its manifest (ReadCheckpointSet). Errors are as New's.
func Resume(dir string, updates int, progressOut io.Writer) (*Experiment, error) {
	cfg, err := ReadConfig(filepath.Join(dir, ConfigFile), "")
	if err != nil {
		return nil, err
	}
	if err := cfg.Normalise(); err != nil {
		return nil, err
	}
	if updates >= 0 {
		cfg.Updates = updates
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	e, err := build(cfg, dir, progressOut)
	if err != nil {
		return nil, err
	}
	e.dir = dir
	if err := checkRun(e, filepath.Dir(dir)); err != nil {
		return nil, err
	}
	return e, nil
}

// Config is the run's resolved config (the model configs derived).
func (e *Experiment) Config() Config { return e.cfg }

// Done is the RL updates the run has done: its loop's, or before RL a
// resumed run's checkpoint set's.
func (e *Experiment) Done() int {
	switch {
	case e.loop != nil:
		return e.loop.Done
	case e.resume != nil:
		return e.resume.Update
	}
	return 0
}

// Loop is the run's RL loop, which holds what RL has done (its updates,
// evaluations and transcripts); nil before RL began.
func (e *Experiment) Loop() *Loop { return e.loop }

// build makes the task, the demonstrator and the policy (from the
// checkpoint set of resumeDir, if set).
func build(cfg Config, resumeDir string, out io.Writer) (*Experiment, error) {
	task, err := tasks.New(cfg.Task, cfg.TaskConfig)
	if err != nil {
		return nil, InputErrorf("%v", err)
	}
	e := &Experiment{cfg: cfg, out: out, task: task, evalTask: task}
	if e.modes, err = evalModes(cfg.Eval.Modes); err != nil {
		return nil, err
	}
	if cfg.Eval.TaskConfig != nil {
		if e.evalTask, err = tasks.New(cfg.Task, cfg.Eval.TaskConfig); err != nil {
			return nil, InputErrorf("eval: %v", err)
		}
	}
	if cfg.SFT.Demos > 0 {
		d := cfg.SFT.Demonstrator
		if e.demo, err = task.Scripted(tasks.PolicySpec{Kind: d.Kind, QAS: d.QAS, QBT: d.QBT}); err != nil {
			return nil, InputErrorf("sft demonstrator: %v", err)
		}
	}
	shared := cfg.SharedCritic()
	if resumeDir != "" {
		if err := e.openResume(resumeDir); err != nil {
			return nil, err
		}
	} else if cfg.Model.Init != "" {
		if e.policy, _, err = model.Load(cfg.Model.Init); err != nil {
			return nil, InputErrorf("init: %v", err)
		}
		if shared && !e.policy.Config.ValueHead {
			return nil, InputErrorf("-init %s: a shared critic needs a policy with a value head; this checkpoint has none (use -critic separate)", cfg.Model.Init)
		}
	} else {
		mc, err := model.NewConfig(cfg.Model.Preset, task.Vocab().Size(), task.MaxTokens())
		if err != nil {
			return nil, InputErrorf("%v", err)
		}
		if shared {
			mc = mc.WithValueHead()
		}
		if e.policy, err = model.New(mc, cfg.Seed); err != nil {
			return nil, InputErrorf("%v", err)
		}
	}
	e.cfg.Model.Policy = e.policy.Config
	e.cfg.Model.Critic = nil
	if cfg.SeparateCritic() {
		c := e.policy.Config.Critic()
		e.cfg.Model.Critic = &c
	}
	// The rollout checks that the policy fits the task (vocabulary,
	// context), as the trainer will.
	if _, err := rl.NewRoller(e.policy, task, *cfg.Rollout()); err != nil {
		return nil, InputErrorf("%v", err)
	}
	return e, nil
}

// Run runs the Experiment into its run folder (which it prepares). When
// ctx is cancelled it stops after the current step, writes a checkpoint
// and the report, and returns ErrInterrupted.
func (e *Experiment) Run(ctx context.Context, force bool) (err error) {
	e.start = time.Now()
	if e.resume == nil {
		if err := PrepareDir(e.dir, force); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(e.dir, CheckpointDir), 0o755); err != nil {
			return fmt.Errorf("run folder: %w", err)
		}
	}
	if err := WriteJSON(filepath.Join(e.dir, ConfigFile), e.cfg); err != nil {
		return err
	}
	e.printHeader()
	e.status = "sft"
	defer func() { err = e.stop(err) }()

	if e.resume == nil {
		if err := e.runSFT(ctx); err != nil {
			return err
		}
		if err := e.policy.Save(filepath.Join(e.dir, CheckpointDir, BasePolicyFile), ckptMeta(e.cfg.Name, 0, "base policy")); err != nil {
			return err
		}
	}
	if e.cfg.Eval.Baselines {
		if err := e.runBaselines(ctx); err != nil {
			return err
		}
	}
	e.status, e.rlStarted = "rl", true
	if err := e.runRL(ctx); err != nil {
		return err
	}
	e.status = "complete"
	if e.loop.Trainer == nil { // no updates: the set is the policy alone
		if err := e.checkpoint(); err != nil {
			return err
		}
	}
	e.printFinal()
	return nil
}

// stop ends Run with err: the status, a checkpoint set for a stop before
// RL (RL's loop saves its own), the trainer and logs closed, the report.
func (e *Experiment) stop(err error) error {
	switch {
	case errors.Is(err, ErrInterrupted):
		e.status = "interrupted"
	case err != nil:
		e.status = "failed: " + err.Error()
	default:
		e.status = "complete"
	}
	switch {
	case errors.Is(err, rl.ErrDiverged):
		e.status = "diverged: " + err.Error()
		fmt.Fprintf(e.out, "\n== stopping (%s): the last checkpoint is kept, only the report is written\n", e.status)
	case errors.Is(err, ErrInterrupted):
		// Interrupted between two steps: the state is whole, so the
		// checkpoint set is one -resume continues from (RL's loop wrote
		// it; before RL it is the policy's).
		fmt.Fprintf(e.out, "\n== stopping (%s): writing a checkpoint and the report\n", e.status)
		if e.loop == nil {
			if cerr := e.checkpoint(); cerr != nil {
				fmt.Fprintf(e.out, "checkpoint: %v\n", cerr)
			}
		}
	case err != nil:
		// A failure may have come mid-update, leaving the weights and
		// moments of no one update: the last set written is kept.
		fmt.Fprintf(e.out, "\n== stopping (%s): the last checkpoint is kept, only the report is written\n", e.status)
	}
	if e.loop != nil {
		if e.loop.Trainer != nil {
			e.loop.Trainer.Close()
		}
		if cerr := e.loop.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	if rerr := e.writeReport(); rerr != nil && err == nil {
		err = rerr
	}
	return err
}

// The phases of a run: the SFT warm start, the RL updates with their
// evaluations and checkpoint sets.

// runSFT is the warm start: demonstrations of the scripted demonstrator,
// then SFT epochs (rl.SFT.Train), each followed by the held-out loss.
func (e *Experiment) runSFT(ctx context.Context) error {
	s := e.cfg.SFT
	if s.Demos == 0 {
		return nil
	}
	fmt.Fprintf(e.out, "\n== SFT warm start: %d demonstrations of %s, %d epochs of minibatches of %d, lr %g\n",
		s.Demos, e.demo.Name(), s.Train.Epochs, s.Train.MiniBatch, s.Train.Optim.LR)
	start := time.Now()
	train, err := rl.Demonstrations(e.task, e.demo, tasks.Train, 0, s.Demos, e.cfg.Seed)
	if err != nil {
		return fmt.Errorf("sft: %w", err)
	}
	var test []*rl.Trajectory
	if s.TestDemos > 0 {
		if test, err = rl.Demonstrations(e.task, e.demo, tasks.Test, 0, s.TestDemos, e.cfg.Seed); err != nil {
			return fmt.Errorf("sft: %w", err)
		}
	}
	sc := s.Train
	sc.MaxLen = e.rolloutMaxLen()
	sft, err := rl.NewSFT(e.policy, sc)
	if err != nil {
		return err
	}
	defer sft.Close()
	log, err := CreateJSONL(filepath.Join(e.dir, SFTFile))
	if err != nil {
		return err
	}
	defer log.Close()
	if len(test) > 0 {
		loss, acc, err := sft.Evaluate(test)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.out, "sft before       test loss %.3f  test acc %.3f  (demonstrations: %.1f s)\n",
			loss, acc, time.Since(start).Seconds())
	}
	e.meter = progress.New(e.out, "sft", sc.Epochs)
	defer e.endPhase()
	if ctx.Err() != nil {
		return ErrInterrupted
	}
	e.meter.Tick(0, "epoch 1 running")
	_, err = sft.Train(train, test, func(m rl.SFTMetrics) error {
		e.sftLog = append(e.sftLog, m)
		if err := log.Write(m); err != nil {
			return err
		}
		done := m.Epoch + 1
		e.meter.Line(done, fmt.Sprintf("sft epoch %d/%d  train loss %.3f  test loss %s  test acc %s  %5.1f s",
			done, sc.Epochs, m.TrainLoss, f3(m.TestLoss), f3(m.TestAccuracy), m.Seconds))
		if done < sc.Epochs {
			if ctx.Err() != nil {
				return ErrInterrupted
			}
			e.meter.Tick(done, fmt.Sprintf("epoch %d running", done+1))
		}
		return nil
	})
	return err
}

// endPhase erases the phase's status line (terminal) and drops the meter.
func (e *Experiment) endPhase() {
	if e.meter != nil {
		e.meter.Finish()
		e.meter = nil
	}
}

// rolloutMaxLen is the longest episode stream the rollouts allow (as
// rl.NewRoller computes it), so SFT's graph fits every demonstration.
func (e *Experiment) rolloutMaxLen() int {
	if l := e.cfg.Rollout().MaxLen; l > 0 {
		return l
	}
	return min(e.task.MaxTokens(), e.policy.Config.Context)
}

// runRL is the RL phase, Loop over the trainer (a resumed run's
// restored from its checkpoint set): an evaluation on the first
// Eval.Episodes validation instances at update 0, every Eval.Every
// updates and after the last, each followed by the checkpoint set -resume
// reads (kept when the run completes, so that -updates can extend it),
// and a set when ctx ends.
func (e *Experiment) runRL(ctx context.Context) error {
	c := e.cfg
	var tr rl.Trainer
	if c.Updates > 0 { // on the current policy: after SFT, so a KL reference is the warm-started one
		var err error
		if tr, err = c.Algorithm.New(e.task, e.policy); err != nil {
			return err
		}
	}
	e.loop = &Loop{Dir: e.dir, SetDir: filepath.Join(e.dir, CheckpointDir), KeepSet: true,
		Info: map[string]string{"run": c.Name, "phase": "rl"}, Task: e.evalTask, Policy: e.policy, Trainer: tr,
		Rollout: *c.Rollout(), Seed: c.Seed, Updates: c.Updates,
		Eval: c.Eval, Modes: e.modes,
		OnUpdate: e.afterUpdate, OnEval: e.afterEval}
	if e.resume != nil {
		if err := e.loop.Resume(); err != nil {
			return InputErrorf("-resume %s: %v", e.dir, err)
		}
		if e.loop.Done != e.resume.Update {
			return fmt.Errorf("resume: the checkpoint set changed since the run started (update %d, was %d)", e.loop.Done, e.resume.Update)
		}
		fmt.Fprintf(e.out, "\n== resuming at update %d of %d (checkpoint status %s)\n", e.loop.Done, c.Updates, e.resume.Info["status"])
	} else if err := e.loop.Start(); err != nil {
		return err
	}
	if c.Updates > 0 {
		e.printRLHeader()
	}
	e.meter = progress.New(e.out, "rl", max(c.Updates, 1))
	defer e.endPhase()
	return e.loop.Run(ctx)
}

// afterUpdate shows an update that the loop has logged.
func (e *Experiment) afterUpdate(m rl.Metrics, seconds float64) {
	e.printUpdate(m.Update+1, m, seconds)
	if e.OnUpdate != nil {
		e.OnUpdate(m)
	}
}

// afterEval shows an evaluation that the loop has logged.
func (e *Experiment) afterEval(r EvalRecord, shown []Sample) {
	e.printEval(r)
	if e.OnEval != nil {
		e.OnEval(r, shown)
	}
}

// checkpoint writes the checkpoint set of a run stopped before RL began,
// or of one without updates: the policy alone (RL's loop writes the
// trainer's whole state), the set -resume reads.
func (e *Experiment) checkpoint() error {
	if e.resume != nil {
		return nil // stopped before its trainer was restored: the set it resumed from stands
	}
	phase := "sft"
	if e.rlStarted {
		phase = "rl"
	}
	info := map[string]string{"run": e.cfg.Name, "status": e.status, "phase": phase}
	return SaveCheckpointSet(filepath.Join(e.dir, CheckpointDir), 0, info, func(next string) ([]string, error) {
		return []string{PolicyFile}, e.policy.Save(filepath.Join(next, PolicyFile), ckptMeta(e.cfg.Name, 0, "policy"))
	})
}

// record is what RL has done, for the report: the loop's record, empty
// before RL began.
func (e *Experiment) record() *Loop {
	if e.loop == nil {
		return &Loop{}
	}
	return e.loop
}

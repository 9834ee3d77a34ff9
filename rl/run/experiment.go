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
	modes    []string // the evaluation modes, parsed once

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

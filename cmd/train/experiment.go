package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"arew/model"
	"arew/rl"
	"arew/rl/progress"
	"arew/tasks"
)

// errInterrupted: the context was cancelled (Ctrl-C, SIGTERM); the run
// stopped between two steps and wrote its checkpoint and report.
var errInterrupted = errors.New("interrupted")

// experiment is one run: everything built from the config before any
// work, and what the run has measured so far (for report.md).
type experiment struct {
	cfg    Config
	dir    string
	out    io.Writer
	task   tasks.Task
	demo   tasks.Policy // the SFT demonstrator, or nil
	policy *model.Model

	// afterUpdate, if set, runs after each RL update has been logged
	// (tests cancel the context from it).
	afterUpdate func(update int)

	// resume is the checkpoint set a resumed run continues from (nil: a
	// new run); rlStarted is whether RL has begun (a set written before
	// holds no state to resume).
	resume    *rl.Manifest
	rlStarted bool

	start     time.Time
	tr        rl.Trainer
	updates   int // RL updates done
	status    string
	sftLog    []rl.SFTMetrics
	evals     []evalRecord
	baselines []baselineRow
	last      []rl.Metrics // the most recent updates, for the report
	metrics   *jsonl
	evalLog   *jsonl
	meter     *progress.Meter // the phase in progress (SFT, RL), or nil
}

// newExperiment builds the task, the demonstrator and the policy and
// derives the model configs into cfg, so every user error (an unknown
// task, bad overrides, a checkpoint that does not fit) is reported before
// the run folder is touched.
func newExperiment(inv invocation, out io.Writer) (*experiment, error) {
	cfg := inv.cfg
	task, err := tasks.New(cfg.Task, cfg.TaskConfig)
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	e := &experiment{cfg: cfg, out: out, task: task}
	if cfg.SFT.Demos > 0 {
		d := cfg.SFT.Demonstrator
		if e.demo, err = task.Scripted(tasks.PolicySpec{Kind: d.Kind, QAS: d.QAS, QBT: d.QBT}); err != nil {
			return nil, usageErrorf("sft demonstrator: %v", err)
		}
	}
	shared := cfg.PPO != nil && cfg.PPO.Critic.Mode == "shared"
	if inv.resume != "" {
		if err := e.openResume(inv.resume); err != nil {
			return nil, err
		}
	} else if cfg.Model.Init != "" {
		if e.policy, _, err = model.Load(cfg.Model.Init); err != nil {
			return nil, usageErrorf("-init: %v", err)
		}
		if shared && !e.policy.Config.ValueHead {
			return nil, usageErrorf("-init %s: a shared critic needs a policy with a value head; this checkpoint has none (use -critic separate)", cfg.Model.Init)
		}
	} else {
		mc, err := model.NewConfig(cfg.Model.Preset, task.Vocab().Size(), task.MaxTokens())
		if err != nil {
			return nil, usageErrorf("%v", err)
		}
		if shared {
			mc = mc.WithValueHead()
		}
		if e.policy, err = model.New(mc, cfg.Seed); err != nil {
			return nil, usageErrorf("%v", err)
		}
	}
	e.cfg.Model.Policy = e.policy.Config
	e.cfg.Model.Critic = nil
	if cfg.PPO != nil && !shared {
		c := e.policy.Config.Critic()
		e.cfg.Model.Critic = &c
	}
	// The rollout checks that the policy fits the task (vocabulary,
	// context), as the trainer will.
	if _, err := rl.NewRoller(e.policy, task, cfg.rollout()); err != nil {
		return nil, usageErrorf("%v", err)
	}
	e.dir = filepath.Join(inv.out, cfg.Name)
	if inv.resume != "" {
		e.dir = inv.resume
	}
	return e, nil
}

// Run runs the experiment into its run folder (which it prepares). When
// ctx is cancelled it stops after the current step, writes a checkpoint
// and the report, and returns errInterrupted.
func (e *experiment) Run(ctx context.Context, force bool) (err error) {
	e.start = time.Now()
	if e.resume == nil {
		if err := prepareRunDir(e.dir, force); err != nil {
			return err
		}
	}
	if err := writeJSON(filepath.Join(e.dir, configFile), e.cfg); err != nil {
		return err
	}
	e.printHeader()
	e.status = "sft"
	defer func() {
		switch {
		case errors.Is(err, errInterrupted):
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
		case errors.Is(err, errInterrupted):
			// Interrupted between two steps: the state is whole, so the
			// checkpoint set is one -resume continues from.
			fmt.Fprintf(e.out, "\n== stopping (%s): writing a checkpoint and the report\n", e.status)
			if cerr := e.checkpoint(); cerr != nil {
				fmt.Fprintf(e.out, "checkpoint: %v\n", cerr)
			}
		case err != nil:
			// A failure may have come mid-update, leaving the weights and
			// moments of no one update: the last set written is kept.
			fmt.Fprintf(e.out, "\n== stopping (%s): the last checkpoint is kept, only the report is written\n", e.status)
		}
		if e.tr != nil {
			e.tr.Close()
		}
		if cerr := e.closeLogs(); cerr != nil && err == nil {
			err = cerr
		}
		if rerr := e.writeReport(); rerr != nil && err == nil {
			err = rerr
		}
	}()

	if e.resume != nil {
		if err := e.reopenLogs(); err != nil {
			return err
		}
	} else if err := e.runSFT(ctx); err != nil {
		return err
	}
	if e.resume == nil {
		if err := e.policy.Save(filepath.Join(e.dir, ckptDir, basePolicyFile), ckptMeta(e.cfg.Name, 0, "base policy")); err != nil {
			return err
		}
	}
	if e.cfg.Eval.Baselines {
		if err := e.runBaselines(ctx); err != nil {
			return err
		}
	}
	if e.resume == nil {
		if e.metrics, err = createJSONL(filepath.Join(e.dir, metricsFile)); err != nil {
			return err
		}
		if e.evalLog, err = createJSONL(filepath.Join(e.dir, evalFile)); err != nil {
			return err
		}
		if err := e.evaluate(ctx, "base"); err != nil {
			return err
		}
	}
	e.status, e.rlStarted = "rl", true
	if err := e.runRL(ctx); err != nil {
		return err
	}
	if e.updates > 0 {
		if err := e.evaluate(ctx, "final"); err != nil {
			return err
		}
	}
	e.status = "complete"
	if err := e.checkpoint(); err != nil {
		return err
	}
	e.printFinal()
	return nil
}

func (e *experiment) closeLogs() error {
	var first error
	for _, j := range []*jsonl{e.metrics, e.evalLog} {
		if j != nil {
			if err := j.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	e.metrics, e.evalLog = nil, nil
	return first
}

// runSFT is the warm start: demonstrations of the scripted demonstrator,
// then SFT epochs, each followed by the held-out loss.
func (e *experiment) runSFT(ctx context.Context) error {
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
	log, err := createJSONL(filepath.Join(e.dir, sftFile))
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
	for epoch := range sc.Epochs {
		if ctx.Err() != nil {
			return errInterrupted
		}
		e.meter.Tick(epoch, fmt.Sprintf("epoch %d running", epoch+1))
		m, err := sft.Epoch(train)
		if err != nil {
			return err
		}
		if len(test) > 0 {
			if m.TestLoss, m.TestAccuracy, err = sft.Evaluate(test); err != nil {
				return err
			}
		}
		e.sftLog = append(e.sftLog, m)
		if err := log.Write(m); err != nil {
			return err
		}
		e.meter.Line(epoch+1, fmt.Sprintf("sft epoch %d/%d  train loss %.3f  test loss %s  test acc %s  %5.1f s",
			epoch+1, sc.Epochs, m.TrainLoss, f3(m.TestLoss), f3(m.TestAccuracy), m.Seconds))
	}
	return nil
}

// endPhase erases the phase's status line (terminal) and drops the meter.
func (e *experiment) endPhase() {
	if e.meter != nil {
		e.meter.Finish()
		e.meter = nil
	}
}

// rolloutMaxLen is the longest episode stream the rollouts allow (as
// rl.NewRoller computes it), so SFT's graph fits every demonstration.
func (e *experiment) rolloutMaxLen() int {
	if l := e.cfg.rollout().MaxLen; l > 0 {
		return l
	}
	return min(e.task.MaxTokens(), e.policy.Config.Context)
}

// newTrainer builds the RL trainer on the current policy (after SFT, so a
// KL reference is the warm-started policy); a resumed run's trainer is
// restored from its checkpoint set.
func (e *experiment) newTrainer() (rl.Trainer, error) {
	var tr rl.Trainer
	var err error
	if e.cfg.PPO != nil {
		tr, err = rl.NewPPO(e.task, e.policy, nil, *e.cfg.PPO)
	} else {
		tr, err = rl.NewGRPO(e.task, e.policy, *e.cfg.GRPO)
	}
	if err != nil || e.resume == nil || !e.resume.Has(rl.TrainerFile) {
		return tr, err // a set without trainer state is one of update 0, before any trainer
	}
	if _, err := tr.RestoreState(filepath.Join(e.dir, ckptDir)); err != nil {
		tr.Close()
		return nil, fmt.Errorf("resume: %w", err)
	}
	if tr.Updates() != e.updates {
		tr.Close()
		return nil, fmt.Errorf("resume: the checkpoint set changed since the run started (update %d, was %d)", tr.Updates(), e.updates)
	}
	return tr, nil
}

// runRL runs the updates, logging each, evaluating and checkpointing
// every Eval.Every updates (the last one is left to the final evaluation).
func (e *experiment) runRL(ctx context.Context) error {
	c := e.cfg
	if c.Updates == 0 {
		return nil
	}
	var err error
	if e.tr, err = e.newTrainer(); err != nil {
		return err
	}
	e.printRLHeader()
	e.meter = progress.New(e.out, "rl", c.Updates)
	defer e.endPhase()
	if e.resume != nil && e.resume.Info["status"] != "complete" && c.Eval.Every > 0 &&
		e.updates > 0 && e.updates%c.Eval.Every == 0 && e.updates < c.Updates {
		// The evaluation due at the update the set holds had not been
		// logged whole (reopenLogs dropped any part of it).
		if err := e.evaluate(ctx, "rl"); err != nil {
			return err
		}
	}
	for u := e.updates; u < c.Updates; u++ {
		if ctx.Err() != nil {
			return errInterrupted
		}
		e.meter.Tick(u, fmt.Sprintf("update %d running", u+1))
		start := time.Now()
		m, err := e.tr.Update()
		if err != nil {
			return err
		}
		e.updates = u + 1
		if err := e.metrics.Write(m); err != nil {
			return err
		}
		e.last = append(e.last, m)
		if len(e.last) > lastWindow {
			e.last = e.last[1:]
		}
		e.printUpdate(u+1, m, time.Since(start).Seconds())
		if e.afterUpdate != nil {
			e.afterUpdate(u)
		}
		if c.Eval.Every > 0 && e.updates%c.Eval.Every == 0 && e.updates < c.Updates {
			if err := e.evaluate(ctx, "rl"); err != nil {
				return err
			}
			if err := e.checkpoint(); err != nil {
				return err
			}
		}
	}
	return nil
}

// evaluate plays the first Eval.Episodes test instances in each mode.
func (e *experiment) evaluate(ctx context.Context, phase string) error {
	if ctx.Err() != nil {
		return errInterrupted
	}
	modes, err := evalModes(e.cfg.Eval.Modes)
	if err != nil {
		return err
	}
	for _, mode := range modes {
		ec := rl.EvalConfig{Split: tasks.Test, Episodes: e.cfg.Eval.Episodes, Seed: e.cfg.Seed, Rollout: e.cfg.rollout()}
		ec.Rollout.Sampler = rl.SamplerConfig{Temperature: 1}
		if mode == "greedy" {
			ec.Rollout.Sampler = rl.SamplerConfig{Greedy: true}
		}
		start := time.Now()
		res, err := rl.Evaluate(e.policy, e.task, ec)
		if err != nil {
			return err
		}
		r := newEvalRecord(e.updates, phase, mode, res.Summary, res.Truncated, time.Since(start).Seconds())
		e.evals = append(e.evals, r)
		if err := e.evalLog.Write(r); err != nil {
			return err
		}
		e.printEval(r)
	}
	return nil
}

// checkpoint writes the run's checkpoint set: the trainer's whole state
// (rl's SaveState), or before RL the policy alone, each file atomically,
// then the manifest naming them (the set -resume reads).
func (e *experiment) checkpoint() error {
	dir := filepath.Join(e.dir, ckptDir)
	phase := "sft"
	if e.rlStarted {
		phase = "rl"
	}
	info := map[string]string{"run": e.cfg.Name, "status": e.status, "phase": phase}
	if e.tr != nil {
		return e.tr.SaveState(dir, info)
	}
	if err := e.policy.Save(filepath.Join(dir, policyFile), ckptMeta(e.cfg.Name, e.updates, "policy")); err != nil {
		return err
	}
	return rl.WriteManifest(dir, e.updates, info, []string{policyFile})
}

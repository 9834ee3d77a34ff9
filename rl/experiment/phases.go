package experiment

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"arew/rl"
	"arew/rl/progress"
	"arew/run"
	"arew/tasks"
)

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
	log, err := rl.CreateJSONL(filepath.Join(e.dir, SFTFile))
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
		return run.ErrInterrupted
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
				return run.ErrInterrupted
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

// newTrainer builds the RL trainer on the current policy (after SFT, so a
// KL reference is the warm-started policy); a resumed run's trainer is
// restored from its checkpoint set.
func (e *Experiment) newTrainer() (rl.Trainer, error) {
	tr, err := e.cfg.Algorithm.New(e.task, e.policy)
	if err != nil || e.resume == nil || !e.resume.Has(rl.TrainerFile) {
		return tr, err // a set without trainer state is one of update 0, before any trainer
	}
	if _, err := tr.RestoreState(filepath.Join(e.dir, CheckpointDir)); err != nil {
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
func (e *Experiment) runRL(ctx context.Context) error {
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
			return run.ErrInterrupted
		}
		e.meter.Tick(u, fmt.Sprintf("update %d running", u+1))
		start := time.Now()
		m, err := e.tr.Update()
		e.skipped += m.SkippedSteps // a diverged update's too, for the report
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
		if e.AfterUpdate != nil {
			e.AfterUpdate(u)
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

// evaluate plays the first Eval.Episodes validation instances in each mode,
// logging the means to eval.jsonl and the first episodes' transcripts to
// samples.jsonl.
func (e *Experiment) evaluate(ctx context.Context, phase string) error {
	if ctx.Err() != nil {
		return run.ErrInterrupted
	}
	for _, mode := range e.modes {
		ec := rl.EvalConfig{Split: tasks.Val, Episodes: e.cfg.Eval.Episodes, Seed: e.cfg.Seed, Rollout: *e.cfg.Rollout()}
		ec.Rollout.Sampler = rl.EvalSampler(mode)
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
		shown := rl.Samples(e.task, ec.Split, res, e.updates, mode)
		for _, smp := range shown {
			if err := e.samples.Write(smp); err != nil {
				return err
			}
		}
		if mode == e.shownMode() {
			e.shown = shown
		}
		e.printEval(r)
	}
	return nil
}

// checkpoint writes the run's checkpoint set: the trainer's whole state
// (rl's SaveState), or before RL the policy alone, each file atomically,
// then the manifest naming them (the set -resume reads).
func (e *Experiment) checkpoint() error {
	dir := filepath.Join(e.dir, CheckpointDir)
	phase := "sft"
	if e.rlStarted {
		phase = "rl"
	}
	info := map[string]string{"run": e.cfg.Name, "status": e.status, "phase": phase}
	if e.tr != nil {
		return e.tr.SaveState(dir, info)
	}
	if e.resume != nil {
		return nil // stopped before its trainer was restored: the set it resumed from stands
	}
	return rl.SaveCheckpointSet(dir, e.updates, info, func(next string) ([]string, error) {
		return []string{PolicyFile}, e.policy.Save(filepath.Join(next, PolicyFile), ckptMeta(e.cfg.Name, e.updates, "policy"))
	})
}

// shownMode is the mode whose transcripts the report shows: sampled,
// unless only greedy evaluations are made.
func (e *Experiment) shownMode() string {
	if e.cfg.Eval.Modes == "greedy" {
		return "greedy"
	}
	return "sampled"
}

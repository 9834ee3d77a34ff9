package run

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"arew/rl"
	"arew/rl/progress"
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

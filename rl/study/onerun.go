package study

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"

	"arew/rl"
	"arew/rl/run"
)

// Each run of a study is a single run (run) in
// <dir>/<arm>/seed-<s>/: the same config, folder, loop, files and resume
// as `cmd/train`'s single runs, so a study's run can be read, repeated
// (-config) or extended (-resume -updates) like any other. PolicyFile is
// the policy of the run's checkpoint set: its last policy, beside the rest
// of the trainer's state.
const PolicyFile = run.CheckpointDir + "/" + run.PolicyFile

// runName is the folder (and the run name) of a seed's run in its arm's
// folder.
func runName(seed uint64) string { return "seed-" + strconv.FormatUint(seed, 10) }

// runConfig is the run of arm with seed from the base checkpoint: the
// study's task with the arm's task config, the study's RL config with the
// arm's changes, its AREW and the seed, no SFT, the study's evaluations.
// An arm that changes the task (its critiques) is still evaluated on the
// study's task, so the measures are one rule across the arms.
func (c *Config) runConfig(a Arm, seed uint64, base string) (run.Config, error) {
	task, err := mergeObjects(c.TaskConfig, a.TaskConfig)
	if err != nil {
		return run.Config{}, fmt.Errorf("task_config: %w", err)
	}
	algo := rl.Algorithm{Algo: rl.Algo(c.Algo)}
	if c.PPO != nil {
		if algo.PPO, err = patched(c.PPO, a.PPO); err != nil {
			return run.Config{}, fmt.Errorf("ppo: %w", err)
		}
		algo.PPO.Advantage.AREW = a.AREW
	} else {
		if algo.GRPO, err = patched(c.GRPO, a.GRPO); err != nil {
			return run.Config{}, fmt.Errorf("grpo: %w", err)
		}
		algo.GRPO.Advantage.AREW = a.AREW
	}
	r := run.Config{Name: runName(seed), Seed: seed, Task: c.Task, TaskConfig: task,
		Model: run.ModelConfig{Init: base}, Algorithm: algo, Updates: c.Updates,
		Eval: run.EvalConfig{Every: c.Eval.Every, Episodes: c.Eval.Episodes, Modes: c.Eval.Modes,
			Split: c.Eval.Split, Test: c.Eval.Test}}
	if !isEmptyJSON(a.TaskConfig) {
		r.Eval.TaskConfig = c.TaskConfig
	}
	if err := r.Normalise(); err != nil {
		return r, err
	}
	return r, r.Validate()
}

// runOne trains arm from the base with seed (or continues its run from
// the checkpoint set an earlier attempt left, if the study is resumed) and
// sums it up; the result is nil only if the run could not start.
func (s *study) runOne(ctx context.Context, arm Arm, seed uint64) (*RunSum, error) {
	if ctx.Err() != nil {
		return nil, run.ErrInterrupted
	}
	name := fmt.Sprintf("%s seed %d", arm.Name, seed)
	e, err := s.startRun(arm, seed)
	if err != nil {
		return nil, fmt.Errorf("study: %s: %w", name, err)
	}
	e.OnUpdate = func(m rl.Metrics) {
		s.updates++
		if s.afterUpdate != nil {
			s.afterUpdate(arm.Name, seed, m.Update+1)
		}
		s.meter.Tick(s.updates, fmt.Sprintf("%s, update %d/%d, train success %.3f", name, m.Update+1, s.cfg.Updates, m.Success))
	}
	e.OnEval = func(r run.EvalRecord, _ []run.Sample) {
		s.meter.Line(s.updates, fmt.Sprintf("%s @ %d %-4s %-7s success %s  AS %s  evidence %s  I_AS %s  C_BT %s", name, r.Update,
			r.Split, r.Mode, f3(r.Success), f3(r.ASProxy), f3(r.Evidence), f3(r.IAS), f3(r.CBT)))
	}
	err = e.Run(ctx, false)
	status := "complete"
	switch {
	case errors.Is(err, run.ErrInterrupted):
		status = "interrupted"
	case err != nil:
		status, err = "failed", fmt.Errorf("study: %s: %w", name, err)
	}
	return s.sumUp(e.Loop(), arm.Name, seed, status), err
}

// startRun prepares the run: a new one, or the continuation of a run an
// earlier attempt cut short (its checkpoint set, run.Resume), which
// the meter counts as done up to there.
func (s *study) startRun(arm Arm, seed uint64) (*run.Experiment, error) {
	armDir := filepath.Join(s.dir, arm.Name)
	if s.partial[arm.Name][seed] {
		dir := filepath.Join(armDir, runName(seed))
		e, err := run.Resume(dir, -1, io.Discard)
		if err != nil {
			return nil, run.InputErr(fmt.Errorf("%w (remove %s to run it again from the start)", err, dir))
		}
		done := e.Done()
		s.updates += done
		s.meter.Printf("%s seed %d: continuing from its checkpoint set at update %d\n", arm.Name, seed, done)
		return e, nil
	}
	rc, err := s.cfg.runConfig(arm, seed, s.base)
	if err != nil {
		return nil, err
	}
	return run.New(rc, armDir, io.Discard)
}

// sumUp is the summary of a run that ended with status: its curve,
// thresholds, final and test evaluations, and its latest transcripts for
// the report (the first seed's).
func (s *study) sumUp(l *run.Loop, arm string, seed uint64, status string) *RunSum {
	r := &RunSum{Seed: seed, Status: status, Curve: []run.Point{}}
	if l != nil {
		r.Done, r.Test = l.Done, l.Test
		r.Curve = append(r.Curve, l.Curve...)
		if seed == s.cfg.Seeds[0] && len(l.Shown) > 0 && l.Shown[0].Mode == "sampled" {
			if s.samples == nil {
				s.samples = map[string][]run.Sample{}
			}
			s.samples[arm] = l.Shown
		}
	}
	r.UpdatesTo = updatesTo(r.Curve, s.sum.Thresholds)
	if len(r.Curve) > 0 {
		r.Base = r.Curve[0].Modes
	}
	if status == "complete" {
		last := r.Curve[len(r.Curve)-1].Modes
		r.Final = &last
	}
	return r
}

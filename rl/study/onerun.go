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
// (-config) or extended (-resume -updates) like any other.

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
	algo := rl.Algorithm{Algo: c.Algo}
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
		Eval: c.Eval.EvalConfig}
	if !isEmptyJSON(a.TaskConfig) {
		r.Eval.TaskConfig = c.TaskConfig
	}
	if err := r.Normalise(); err != nil {
		return r, err
	}
	return r, r.Validate()
}

// runOne trains arm from the base with seed (or, with cont, continues its
// run from the checkpoint set an earlier attempt left) and sums it up; the
// result is nil only if the run could not start.
func (s *study) runOne(ctx context.Context, arm Arm, seed uint64, p *run.Progress, cont bool) (*RunSum, error) {
	name := fmt.Sprintf("%s seed %d", arm.Name, seed)
	dir := filepath.Join(s.dir, arm.Name, runName(seed))
	var e *run.Experiment
	var err error
	if cont {
		if e, err = run.Resume(dir, -1, io.Discard); err != nil {
			return nil, run.InputErr(fmt.Errorf("%w (remove %s to run it again from the start)", err, dir))
		}
	} else {
		rc, err := s.cfg.runConfig(arm, seed, s.base)
		if err != nil {
			return nil, err
		}
		if e, err = run.New(rc, filepath.Dir(dir), io.Discard); err != nil {
			return nil, err
		}
	}
	e.OnUpdate = func(m rl.Metrics) {
		if s.afterUpdate != nil {
			s.afterUpdate(arm.Name, seed, m.Update+1)
		}
		p.Step(fmt.Sprintf("%s, update %d/%d, train success %.3f", name, m.Update+1, s.cfg.Updates, m.Success))
	}
	e.OnEval = func(r run.EvalRecord, _ []run.Sample) {
		p.Line(fmt.Sprintf("%s @ %d %-4s %-7s success %s  AS %s  evidence %s  I_AS %s  C_BT %s", name, r.Update,
			r.Split, r.Mode, f3(r.Success), f3(r.ASProxy), f3(r.Evidence), f3(r.IAS), f3(r.CBT)))
	}
	err = e.Run(ctx, false)
	status := "complete"
	switch {
	case errors.Is(err, run.ErrInterrupted):
		status = "interrupted"
	case err != nil:
		status = "failed"
	}
	var sum *RunSum
	p.Locked(func() { sum = s.sumUp(e.Loop(), arm.Name, seed, status) }) // runs of a sweep may end at once
	return sum, err
}

// sumUp is the summary of a run that ended with status: its curve,
// thresholds, final and test evaluations, and its latest transcripts for
// the report (the first seed's).
func (s *study) sumUp(l *run.Loop, arm string, seed uint64, status string) *RunSum {
	r := &RunSum{Seed: seed, Status: status, Curve: []run.Point{}}
	if l != nil {
		r.Done, r.Test = l.Done, l.Test
		r.Curve = append(r.Curve, l.Curve...)
		if seed == s.cfg.Seeds[0] && len(l.Shown) > 0 && l.Shown[0].Mode == rl.ModeSampled {
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

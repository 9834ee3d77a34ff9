package study

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"arew/model"
	"arew/rl"
	"arew/run"
)

// The files of one run's folder, <dir>/<arm>/seed-<s>/: the run layer's
// logs, events and provenance (run.Loop), the run's config, its final
// policy and, while it trains, its checkpoint set.
const (
	RunConfigFile  = "config.json"
	MetricsFile    = run.MetricsFile
	EvalFile       = run.EvalFile
	SamplesFile    = run.SamplesFile
	ProvenanceFile = run.ProvenanceFile // also the study's own: its attempts
	TBDir          = run.TBDir
	PolicyFile     = "checkpoints/policy.safetensors"
	// ResumeDir is the run's checkpoint set while it trains
	// (rl.Trainer.SaveState): the trainer's whole state, written after
	// every in-training evaluation and when the run is interrupted, and
	// removed when the run completes. A resumed study continues the run
	// from it, bitwise (run.Loop.Resume).
	ResumeDir = "resume"
)

// RunConfig is one run of a study: its config.json.
type RunConfig struct {
	Study      string          `json:"study"`
	Arm        string          `json:"arm"`
	Seed       uint64          `json:"seed"`
	Task       string          `json:"task"`
	TaskConfig json.RawMessage `json:"task_config,omitempty"`
	Base       string          `json:"base"` // the checkpoint the run starts from
	Algo       string          `json:"algo"`
	Updates    int             `json:"updates"`
	PPO        *rl.PPOConfig   `json:"ppo,omitempty"`
	GRPO       *rl.GRPOConfig  `json:"grpo,omitempty"`
	Eval       EvalConfig      `json:"eval"`
}

// runConfig is the study's config with the arm's task config, RL changes
// and AREW, and the seed.
func (c *Config) runConfig(a Arm, seed uint64) (RunConfig, error) {
	task, err := mergeObjects(c.TaskConfig, a.TaskConfig)
	if err != nil {
		return RunConfig{}, fmt.Errorf("task_config: %w", err)
	}
	r := RunConfig{Study: c.Name, Arm: a.Name, Seed: seed, Task: c.Task, TaskConfig: task,
		Base: c.Base.Path, Algo: c.Algo, Updates: c.Updates, Eval: c.Eval}
	if c.PPO != nil {
		p, err := patched(c.PPO, a.PPO)
		if err != nil {
			return RunConfig{}, fmt.Errorf("ppo: %w", err)
		}
		p.Seed, p.Advantage.AREW = seed, a.AREW
		r.PPO = p
	} else {
		g, err := patched(c.GRPO, a.GRPO)
		if err != nil {
			return RunConfig{}, fmt.Errorf("grpo: %w", err)
		}
		g.Seed, g.Advantage.AREW = seed, a.AREW
		r.GRPO = g
	}
	return r, nil
}

// algorithm is the run's RL config as rl's front door sees it: its
// Validate, Rollout and New (PPO's critic is fresh, from the run's seed).
func (r RunConfig) algorithm() *rl.Algorithm {
	return &rl.Algorithm{Algo: rl.Algo(r.Algo), PPO: r.PPO, GRPO: r.GRPO}
}

// EvalRecord is one line of a run's eval.jsonl.
type EvalRecord = run.EvalRecord

// runOne trains arm from the base with seed (or continues its run from
// the checkpoint set an earlier attempt left, if the study is resumed) and
// evaluates it; the result is nil only if the run could not start.
func (s *study) runOne(ctx context.Context, arm Arm, seed uint64) (*RunSum, error) {
	if ctx.Err() != nil {
		return nil, run.ErrInterrupted
	}
	o, err := s.startRun(arm, seed)
	if err != nil {
		return nil, err
	}
	defer o.close()
	return o.train(ctx)
}

// oneRun is one run of the study in progress.
type oneRun struct {
	s      *study
	arm    string
	seed   uint64
	name   string // "<arm> seed <seed>", for messages
	dir    string
	policy *model.Model // the trainer's policy
	loop   *run.Loop
}

// runDir is the folder of arm's run with seed.
func (s *study) runDir(arm string, seed uint64) string {
	return filepath.Join(s.dir, arm, "seed-"+strconv.FormatUint(seed, 10))
}

// startRun builds the run's trainer from the base, and its folder: a new
// one, or the folder of a run an earlier attempt cut short, whose trainer
// and logs are restored to its checkpoint set (run.Loop.Resume).
func (s *study) startRun(arm Arm, seed uint64) (*oneRun, error) {
	rc, err := s.cfg.runConfig(arm, seed)
	if err != nil {
		return nil, fmt.Errorf("study: arm %s: %w", arm.Name, err)
	}
	rc.Base = s.base
	o := &oneRun{s: s, arm: arm.Name, seed: seed, name: fmt.Sprintf("%s seed %d", arm.Name, seed), dir: s.runDir(arm.Name, seed)}
	resumed := s.partial[arm.Name][seed]
	if !resumed {
		if err := os.MkdirAll(filepath.Join(o.dir, filepath.Dir(PolicyFile)), 0o755); err != nil {
			return nil, fmt.Errorf("study: %w", err)
		}
		if err := writeJSON(filepath.Join(o.dir, RunConfigFile), rc); err != nil {
			return nil, err
		}
	}
	if o.policy, _, err = model.Load(s.base); err != nil {
		return nil, fmt.Errorf("study: %w", err)
	}
	tr, err := rc.algorithm().New(s.armTask[arm.Name], o.policy)
	if err != nil {
		return nil, fmt.Errorf("study: %s: %w", o.name, err)
	}
	o.loop = s.loop(rc, tr, o)
	if resumed {
		if err = o.loop.Resume(); err == nil {
			s.updates += o.loop.Done
			o.keepShown(o.loop.Shown)
			fmt.Fprintf(s.out, "%s: continuing from its checkpoint set at update %d\n", o.name, o.loop.Done)
		} else {
			err = inputErr(fmt.Errorf("study: resume %s: %w (remove %s to run it again from the start)", o.name, err, o.dir))
		}
	} else {
		err = o.loop.Start()
	}
	if err != nil {
		o.close()
		return nil, err
	}
	return o, nil
}

// loop is the run's RL loop. It plays the study's task, not the arm's:
// an arm's task config may change the critiques it trains on (which
// change no observation), never what its measures mean, so the AS proxy
// is one rule across the arms. Its evaluations draw from the run's seed,
// so every arm of a seed meets the same instances and sampling streams.
func (s *study) loop(rc RunConfig, tr rl.Trainer, o *oneRun) *run.Loop {
	modes, _ := rl.EvalModes(s.cfg.Eval.Modes) // checked by Validate
	return &run.Loop{Dir: o.dir, SetDir: filepath.Join(o.dir, ResumeDir),
		Info: map[string]string{"study": s.cfg.Name, "arm": o.arm, "seed": strconv.FormatUint(o.seed, 10)},
		Task: s.task, Policy: o.policy, Trainer: tr, Rollout: *rc.algorithm().Rollout(), Seed: o.seed, Updates: s.cfg.Updates,
		Eval:     run.Eval{Every: s.cfg.Eval.Every, Episodes: s.cfg.Eval.Episodes, Modes: modes, Split: s.cfg.Eval.split(), Test: s.cfg.Eval.Test},
		OnUpdate: o.afterUpdate, OnEval: o.afterEval}
}

func (o *oneRun) close() {
	o.loop.Close()
	o.loop.Trainer.Close()
}

// train runs the rest of the run and sums it up.
func (o *oneRun) train(ctx context.Context) (*RunSum, error) {
	err := o.loop.Run(ctx)
	status := "complete"
	switch {
	case errors.Is(err, run.ErrInterrupted):
		status = "interrupted"
	case err != nil:
		status, err = "failed", fmt.Errorf("study: %s: %w", o.name, err)
	}
	return o.finish(status, err)
}

// afterUpdate counts the update and shows it.
func (o *oneRun) afterUpdate(m rl.Metrics, _ float64) {
	s, done := o.s, m.Update+1
	s.updates++
	if s.afterUpdate != nil {
		s.afterUpdate(o.arm, o.seed, done)
	}
	s.meter.Tick(s.updates, fmt.Sprintf("%s, update %d/%d, train success %.3f", o.name, done, s.cfg.Updates, m.Success))
}

// afterEval prints an evaluation's line and keeps the first seed's
// sampled transcripts for the report.
func (o *oneRun) afterEval(r EvalRecord, shown []run.Sample) {
	o.s.meter.Line(o.s.updates, fmt.Sprintf("%s @ %d %-4s %-7s success %s  AS %s  evidence %s  I_AS %s  C_BT %s", o.name, r.Update,
		r.Split, r.Mode, f3(r.Success), f3(r.ASProxy), f3(r.Evidence), f3(r.IAS), f3(r.CBT)))
	if r.Mode == "sampled" {
		o.keepShown(shown)
	}
}

// keepShown keeps the sampled transcripts of the first seed's runs for
// the report.
func (o *oneRun) keepShown(shown []run.Sample) {
	if o.seed != o.s.cfg.Seeds[0] || len(shown) == 0 || shown[0].Mode != "sampled" {
		return
	}
	if o.s.samples == nil {
		o.s.samples = map[string][]Sample{}
	}
	o.s.samples[o.arm] = shown
}

// finish sums up the run that ended with status: its curve, thresholds,
// final and test evaluations; and saves its policy (unless it diverged).
func (o *oneRun) finish(status string, err error) (*RunSum, error) {
	l := o.loop
	r := &RunSum{Seed: o.seed, Status: status, Done: l.Done, Curve: l.Curve, Test: l.Test}
	if r.Curve == nil {
		r.Curve = []Point{}
	}
	r.UpdatesTo = updatesTo(r.Curve, o.s.sum.Thresholds)
	if len(r.Curve) > 0 {
		r.Base = r.Curve[0].Modes
	}
	if status == "complete" {
		last := r.Curve[len(r.Curve)-1].Modes
		r.Final = &last
	}
	if errors.Is(err, rl.ErrDiverged) {
		return r, err // no policy worth saving
	}
	meta := map[string]string{"study": o.s.cfg.Name, "arm": o.arm, "seed": strconv.FormatUint(o.seed, 10),
		"update": strconv.Itoa(r.Done), "status": status}
	if serr := o.policy.Save(filepath.Join(o.dir, PolicyFile), meta); serr != nil && err == nil {
		err = serr
	}
	return r, err
}

// SamplesPerEval and Sample are rl's: the transcripts every run writes.
const SamplesPerEval = run.SamplesPerEval

// Sample is one line of samples.jsonl (run.Sample).
type Sample = run.Sample

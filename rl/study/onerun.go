package study

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"arew/model"
	"arew/rl"
	"arew/run"
	"arew/run/tensorboard"
	"arew/tasks"
)

// The files of one run's folder, <dir>/<arm>/seed-<s>/.
const (
	RunConfigFile = "config.json"
	MetricsFile   = "metrics.jsonl" // one rl.Metrics per update
	EvalFile      = "eval.jsonl"    // one EvalRecord per evaluation and mode
	SamplesFile   = "samples.jsonl" // one Sample per transcribed episode
	PolicyFile    = "checkpoints/policy.safetensors"
	// ProvenanceFile is where and when the run ran (run.Provenance); it is
	// the only file of a run with wall times.
	ProvenanceFile = "provenance.json"
	TBDir          = "tb" // TensorBoard event files (tb.go)
	// ResumeDir is the run's checkpoint set while it trains
	// (rl.Trainer.SaveState): the trainer's whole state, written after
	// every in-training evaluation and when the run is interrupted, and
	// removed when the run completes. A resumed study continues the run
	// from it, bitwise (restore).
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
type EvalRecord struct {
	Update    int     `json:"update"`
	Split     string  `json:"split"`
	Mode      string  `json:"mode"`
	Episodes  int     `json:"episodes"`
	Truncated int     `json:"truncated"`
	Seconds   float64 `json:"seconds"`
	Measures
}

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
	rc     RunConfig
	dir    string
	policy *model.Model // the trainer's policy
	tr     rl.Trainer
	f      *runFiles
	r      *RunSum
}

// runDir is the folder of arm's run with seed.
func (s *study) runDir(arm string, seed uint64) string {
	return filepath.Join(s.dir, arm, "seed-"+strconv.FormatUint(seed, 10))
}

// startRun builds the run's trainer from the base, and its folder: a new
// one, or the folder of a run an earlier attempt cut short, whose trainer
// state and logs are restored to its checkpoint set (restore).
func (s *study) startRun(arm Arm, seed uint64) (*oneRun, error) {
	rc, err := s.cfg.runConfig(arm, seed)
	if err != nil {
		return nil, fmt.Errorf("study: arm %s: %w", arm.Name, err)
	}
	rc.Base = s.base
	o := &oneRun{s: s, arm: arm.Name, seed: seed, name: fmt.Sprintf("%s seed %d", arm.Name, seed), rc: rc,
		dir: s.runDir(arm.Name, seed), r: &RunSum{Seed: seed, Status: "running", Curve: []Point{}}}
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
	if o.tr, err = rc.algorithm().New(s.armTask[arm.Name], o.policy); err != nil {
		return nil, fmt.Errorf("study: %s: %w", o.name, err)
	}
	if resumed {
		err = o.restore()
	} else {
		o.f, err = openRunFiles(o.dir, nil, 0)
	}
	if err != nil {
		o.close()
		return nil, err
	}
	return o, nil
}

func (o *oneRun) close() {
	if o.f != nil {
		o.f.close()
	}
	o.tr.Close()
}

// train runs the run's remaining updates, evaluating at 0 (a new run),
// every Eval.Every updates and at the end, then the final test
// evaluation. The trainer's state is saved in ResumeDir after each
// in-training evaluation and when ctx ends; the set is removed when the
// run completes.
func (o *oneRun) train(ctx context.Context) (*RunSum, error) {
	s, r := o.s, o.r
	if len(r.Curve) == 0 {
		if err := o.evaluate(0); err != nil {
			return o.finish("failed", err)
		}
	}
	every := s.cfg.Eval.Every
	for r.Done < s.cfg.Updates {
		if ctx.Err() != nil {
			return o.finish("interrupted", run.ErrInterrupted)
		}
		m, err := o.tr.Update()
		if err != nil {
			return o.finish("failed", fmt.Errorf("study: %s: %w", o.name, err))
		}
		r.Done++
		s.updates++
		if err := o.f.logMetrics(m); err != nil {
			return o.finish("failed", err)
		}
		if s.afterUpdate != nil {
			s.afterUpdate(o.arm, o.seed, r.Done)
		}
		s.meter.Tick(s.updates, fmt.Sprintf("%s, update %d/%d, train success %.3f", o.name, r.Done, s.cfg.Updates, m.Success))
		if r.Done == s.cfg.Updates || (every > 0 && r.Done%every == 0) {
			if err := o.evaluate(r.Done); err != nil {
				return o.finish("failed", err)
			}
			if err := o.saveState("running"); err != nil {
				return o.finish("failed", err)
			}
		}
	}
	if n := s.cfg.Eval.Test; n > 0 {
		p, err := s.evaluate(o.policy, o.rc, evalPlan{r.Done, tasks.Test, n, []string{"greedy", "sampled"}}, o.f.evals, nil, o.name, o.arm)
		if err != nil {
			return o.finish("failed", err)
		}
		r.Test = &p.Modes
		if err := o.f.tb.Scalars(int64(r.Done), evalScalars("test", p.Modes)); err != nil {
			return o.finish("failed", err)
		}
	}
	return o.finish("complete", nil)
}

// evaluate runs the in-training evaluation after update and adds it to
// the curve.
func (o *oneRun) evaluate(update int) error {
	ms, err := rl.EvalModes(o.s.cfg.Eval.Modes)
	if err != nil {
		return err
	}
	p, err := o.s.evaluate(o.policy, o.rc, evalPlan{update, o.s.cfg.Eval.split(), o.s.cfg.Eval.Episodes, ms}, o.f.evals, o.f.samples, o.name, o.arm)
	if err != nil {
		return err
	}
	o.r.Curve = append(o.r.Curve, p)
	return o.f.tb.Scalars(int64(update), evalScalars("eval", p.Modes))
}

// saveState writes the trainer's state to the run's ResumeDir.
func (o *oneRun) saveState(status string) error {
	info := map[string]string{"study": o.s.cfg.Name, "arm": o.arm, "seed": strconv.FormatUint(o.seed, 10), "status": status}
	return o.tr.SaveState(filepath.Join(o.dir, ResumeDir), info)
}

// finish ends the run with status: the summary's fields, the provenance,
// the policy (unless it diverged) and, for a run interrupted between two
// updates, the checkpoint set a resume continues from; a complete run's
// set is removed.
func (o *oneRun) finish(status string, err error) (*RunSum, error) {
	r := o.r
	r.Status = status
	r.UpdatesTo = updatesTo(r.Curve, o.s.sum.Thresholds)
	if len(r.Curve) > 0 {
		r.Base = r.Curve[0].Modes
	}
	if status == "complete" {
		last := r.Curve[len(r.Curve)-1].Modes
		r.Final = &last
	}
	if perr := o.f.finishProvenance(); perr != nil && err == nil {
		err = perr
	}
	if errors.Is(err, rl.ErrDiverged) {
		return r, err // no policy worth saving
	}
	meta := map[string]string{"study": o.s.cfg.Name, "arm": o.arm, "seed": strconv.FormatUint(o.seed, 10),
		"update": strconv.Itoa(r.Done), "status": status}
	if serr := o.policy.Save(filepath.Join(o.dir, PolicyFile), meta); serr != nil && err == nil {
		err = serr
	}
	switch status {
	case "interrupted":
		if serr := o.saveState(status); serr != nil && errors.Is(err, run.ErrInterrupted) {
			err = serr
		}
	case "complete":
		if rerr := os.RemoveAll(filepath.Join(o.dir, ResumeDir)); rerr != nil && err == nil {
			err = fmt.Errorf("study: %w", rerr)
		}
	}
	return r, err
}

// runFiles are what one run writes as it goes: its logs, its TensorBoard
// events and its provenance (started when the files open).
type runFiles struct {
	dir                     string
	metrics, evals, samples *jsonl
	tb                      *tensorboard.Writer
	prov                    run.Provenance
	start                   time.Time
}

// openRunFiles opens the run's logs and event file in dir and writes its
// provenance; on an error nothing stays open. A new run (kept nil)
// creates its logs; a resumed one writes back the lines kept holds for
// each log (restore) and appends after them, and its provenance says from
// which update it continued.
func openRunFiles(dir string, kept map[string][]byte, resumedAt int) (f *runFiles, err error) {
	f = &runFiles{dir: dir, start: time.Now()}
	defer func() {
		if err != nil {
			f.close()
		}
	}()
	for _, l := range []struct {
		name string
		to   **jsonl
	}{{MetricsFile, &f.metrics}, {EvalFile, &f.evals}, {SamplesFile, &f.samples}} {
		path := filepath.Join(dir, l.name)
		if kept == nil {
			*l.to, err = createJSONL(path)
		} else if err = writeFile(path, kept[l.name]); err == nil {
			*l.to, err = rl.AppendJSONL(path)
		}
		if err != nil {
			return f, err
		}
	}
	f.prov = run.Collect(f.start)
	f.prov.ResumedAt = resumedAt
	if err = writeJSON(filepath.Join(dir, ProvenanceFile), f.prov); err != nil {
		return f, err
	}
	if err := os.RemoveAll(filepath.Join(dir, TBDir)); err != nil { // a resumed run's events are written again (restore)
		return f, fmt.Errorf("study: %w", err)
	}
	if f.tb, err = tensorboard.Create(filepath.Join(dir, TBDir)); err != nil {
		return f, fmt.Errorf("study: %w", err)
	}
	return f, nil
}

// logMetrics writes one update's metrics to metrics.jsonl and the events.
func (f *runFiles) logMetrics(m rl.Metrics) error {
	if err := f.metrics.Write(m); err != nil {
		return err
	}
	return f.tb.Scalars(int64(m.Update+1), metricScalars(m))
}

// finishProvenance records the run's end and wall time.
func (f *runFiles) finishProvenance() error {
	f.prov.Finish(time.Now(), time.Since(f.start))
	return writeJSON(filepath.Join(f.dir, ProvenanceFile), f.prov)
}

func (f *runFiles) close() {
	for _, l := range []*jsonl{f.metrics, f.evals, f.samples} {
		if l != nil {
			l.Close()
		}
	}
	if f.tb != nil {
		f.tb.Close()
	}
}

// evalPlan is one evaluation: which instances, how many, in which modes.
type evalPlan struct {
	update   int
	split    tasks.Split
	episodes int
	modes    []string
}

// evaluate plays the plan's first instances of its split in each mode,
// from the run's seed (so every arm of a seed meets the same instances and
// the same sampling streams); samples nil keeps no transcripts. It plays
// the study's task, not the arm's: an arm's task config may change the
// critiques it trains on (which change no observation), never what its
// measures mean, so the AS proxy is one rule across the arms.
func (s *study) evaluate(policy *model.Model, rc RunConfig, plan evalPlan, log, samples *jsonl, name, arm string) (Point, error) {
	task := s.task
	update := plan.update
	p := Point{Update: update}
	for _, mode := range plan.modes {
		ec := rl.EvalConfig{Split: plan.split, Episodes: plan.episodes, Seed: rc.Seed, Rollout: *rc.algorithm().Rollout()}
		ec.Rollout.Sampler = rl.EvalSampler(mode)
		start := time.Now()
		res, err := rl.Evaluate(policy, task, ec)
		if err != nil {
			return p, fmt.Errorf("study: %s: %w", name, err)
		}
		m := measuresOf(res.Summary)
		p.set(mode, m)
		rec := EvalRecord{Update: update, Split: plan.split.String(), Mode: mode, Episodes: res.Summary.Episodes, Truncated: res.Truncated,
			Seconds: time.Since(start).Seconds(), Measures: *m}
		if err := log.Write(rec); err != nil {
			return p, err
		}
		if samples != nil {
			if err := s.keepSamples(samples, res, plan.split, update, mode, arm, rc.Seed); err != nil {
				return p, err
			}
		}
		s.meter.Line(s.updates, fmt.Sprintf("%s @ %d %-4s %-7s success %s  AS %s  evidence %s  I_AS %s  C_BT %s", name, update,
			plan.split, mode, f3(m.Success), f3(m.ASProxy), f3(m.Evidence), f3(m.IAS), f3(m.CBT)))
	}
	return p, nil
}

// SamplesPerEval and Sample are rl's: the transcripts every run writes.
const SamplesPerEval = rl.SamplesPerEval

// Sample is one line of samples.jsonl (rl.Sample).
type Sample = rl.Sample

// keepSamples writes the first SamplesPerEval episodes of an evaluation to
// samples.jsonl and keeps the sampled ones of each arm's first seed, the
// latest evaluation's, for the report.
func (s *study) keepSamples(log *jsonl, res rl.EvalResult, split tasks.Split, update int, mode, arm string, seed uint64) error {
	kept := rl.Samples(s.task, split, res, update, mode)
	for _, smp := range kept {
		if err := log.Write(smp); err != nil {
			return err
		}
	}
	if mode == "sampled" && seed == s.cfg.Seeds[0] {
		if s.samples == nil {
			s.samples = map[string][]Sample{}
		}
		s.samples[arm] = kept
	}
	return nil
}

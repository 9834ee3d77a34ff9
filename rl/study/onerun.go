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

// runOne trains arm from the base with seed and evaluates it; the result
// is nil only if the run could not start.
func (s *study) runOne(ctx context.Context, arm Arm, seed uint64) (*RunSum, error) {
	if ctx.Err() != nil {
		return nil, run.ErrInterrupted
	}
	rc, err := s.cfg.runConfig(arm, seed)
	if err != nil {
		return nil, fmt.Errorf("study: arm %s: %w", arm.Name, err)
	}
	rc.Base = s.base
	task := s.armTask[arm.Name]
	dir := filepath.Join(s.dir, arm.Name, "seed-"+strconv.FormatUint(seed, 10))
	if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(PolicyFile)), 0o755); err != nil {
		return nil, fmt.Errorf("study: %w", err)
	}
	if err := writeJSON(filepath.Join(dir, RunConfigFile), rc); err != nil {
		return nil, err
	}
	policy, _, err := model.Load(s.base)
	if err != nil {
		return nil, fmt.Errorf("study: %w", err)
	}
	tr, err := rc.algorithm().New(task, policy)
	if err != nil {
		return nil, fmt.Errorf("study: %s seed %d: %w", arm.Name, seed, err)
	}
	defer tr.Close()
	f, err := openRunFiles(dir)
	if err != nil {
		return nil, err
	}
	defer f.close()

	name := fmt.Sprintf("%s seed %d", arm.Name, seed)
	r := &RunSum{Seed: seed, Status: "running", Curve: []Point{}}
	evaluate := func(update int) error {
		ms, err := rl.EvalModes(s.cfg.Eval.Modes)
		if err != nil {
			return err
		}
		p, err := s.evaluate(policy, rc, evalPlan{update, s.cfg.Eval.split(), s.cfg.Eval.Episodes, ms}, f.evals, f.samples, name, arm.Name)
		if err != nil {
			return err
		}
		r.Curve = append(r.Curve, p)
		return f.tb.Scalars(int64(update), evalScalars("eval", p.Modes))
	}
	finish := func(status string, err error) (*RunSum, error) {
		r.Status = status
		r.UpdatesTo = updatesTo(r.Curve, s.sum.Thresholds)
		if len(r.Curve) > 0 {
			r.Base = r.Curve[0].Modes
		}
		if status == "complete" {
			last := r.Curve[len(r.Curve)-1].Modes
			r.Final = &last
		}
		if perr := f.finishProvenance(); perr != nil && err == nil {
			err = perr
		}
		meta := map[string]string{"study": s.cfg.Name, "arm": arm.Name, "seed": strconv.FormatUint(seed, 10),
			"update": strconv.Itoa(r.Done), "status": status}
		if errors.Is(err, rl.ErrDiverged) {
			return r, err // no policy worth saving
		}
		if serr := policy.Save(filepath.Join(dir, PolicyFile), meta); serr != nil && err == nil {
			err = serr
		}
		return r, err
	}

	if err := evaluate(0); err != nil {
		return finish("failed", err)
	}
	every := s.cfg.Eval.Every
	for u := range s.cfg.Updates {
		if ctx.Err() != nil {
			return finish("interrupted", run.ErrInterrupted)
		}
		m, err := tr.Update()
		if err != nil {
			return finish("failed", fmt.Errorf("study: %s: %w", name, err))
		}
		r.Done = u + 1
		s.updates++
		if err := f.metrics.Write(m); err != nil {
			return finish("failed", err)
		}
		if err := f.tb.Scalars(int64(r.Done), metricScalars(m)); err != nil {
			return finish("failed", err)
		}
		if s.afterUpdate != nil {
			s.afterUpdate(arm.Name, seed, r.Done)
		}
		s.meter.Tick(s.updates, fmt.Sprintf("%s, update %d/%d, train success %.3f", name, r.Done, s.cfg.Updates, m.Success))
		if r.Done == s.cfg.Updates || (every > 0 && r.Done%every == 0) {
			if err := evaluate(r.Done); err != nil {
				return finish("failed", err)
			}
		}
	}
	if n := s.cfg.Eval.Test; n > 0 {
		p, err := s.evaluate(policy, rc, evalPlan{r.Done, tasks.Test, n, []string{"greedy", "sampled"}}, f.evals, nil, name, arm.Name)
		if err != nil {
			return finish("failed", err)
		}
		r.Test = &p.Modes
		if err := f.tb.Scalars(int64(r.Done), evalScalars("test", p.Modes)); err != nil {
			return finish("failed", err)
		}
	}
	return finish("complete", nil)
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

// openRunFiles creates the run's logs and event file in dir and writes its
// provenance; on an error nothing stays open.
func openRunFiles(dir string) (f *runFiles, err error) {
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
		if *l.to, err = createJSONL(filepath.Join(dir, l.name)); err != nil {
			return f, err
		}
	}
	f.prov = run.Collect(f.start)
	if err = writeJSON(filepath.Join(dir, ProvenanceFile), f.prov); err != nil {
		return f, err
	}
	if f.tb, err = tensorboard.Create(filepath.Join(dir, TBDir)); err != nil {
		return f, fmt.Errorf("study: %w", err)
	}
	return f, nil
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

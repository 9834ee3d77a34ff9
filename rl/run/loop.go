package run

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"time"

	"arew/model"
	"arew/rl"
	"arew/rl/run/tensorboard"
	"arew/tasks"
)

// The files a Loop writes in its run folder.
const (
	MetricsFile    = "metrics.jsonl"   // one rl.Metrics per update
	EvalFile       = "eval.jsonl"      // one EvalRecord per evaluation and mode
	SamplesFile    = "samples.jsonl"   // one Sample per transcribed evaluation episode
	ProvenanceFile = "provenance.json" // Provenance: where and when the run ran; its only wall times
	TBDir          = "tb"              // TensorBoard event files (tb.go)
)

// Loop is the RL phase of one run, the same for a single run
// (run) and for each run of a study (rl/study): Updates updates
// of Trainer, each logged; an evaluation of Policy at update 0, every
// Eval.Every updates and after the last, each logged with the first
// episodes' transcripts; then the final test evaluation. After every
// in-training evaluation, and when the context ends, the trainer's whole
// state is saved as a checkpoint set in SetDir, so that Resume continues
// the run bitwise (resume.go); a complete run's set is kept (KeepSet: it
// may be extended) or removed.
//
// The Loop owns its logs (metrics.jsonl, eval.jsonl, samples.jsonl), the
// TensorBoard events (tb/) and provenance.json in Dir; the caller owns
// everything else of the folder. After Run (or Resume) the fields under
// "What the run has done" describe the whole run, resumed parts included.
type Loop struct {
	Dir     string
	SetDir  string            // the checkpoint set's folder
	KeepSet bool              // keep the set of a complete run (else it is removed)
	Info    map[string]string // the set's description; the Loop adds its status
	Task    tasks.Task        // what the evaluations play
	Policy  *model.Model      // the policy the trainer trains
	Trainer rl.Trainer        // nil only when Updates is 0
	Rollout rl.RolloutConfig  // the evaluations' rollouts (the sampler is set per mode)
	Seed    uint64            // the evaluations' streams: the same for every arm of a seed
	Updates int
	Eval    EvalConfig    // the evaluations: in training every Eval.Every updates, the final one on test
	Modes   []rl.EvalMode // Eval.Modes, parsed

	// OnUpdate, if set, runs after each update is logged, with its wall time.
	OnUpdate func(m rl.Metrics, seconds float64)
	// OnEval, if set, runs after each evaluation in one mode is logged,
	// with the transcripts it kept (none for the test split).
	OnEval func(r EvalRecord, shown []Sample)

	// What the run has done.
	Done    int          // updates done
	Metrics []rl.Metrics // one per update
	Skipped int          // optimiser steps skipped (non-finite), a diverged update's too
	Curve   []Point      // the in-training evaluations
	Test    *Modes       // the final test evaluation, once made
	Evals   []EvalRecord // every evaluation, test included
	// Shown are the transcripts of the latest in-training evaluation, of
	// its sampled mode when it has one.
	Shown []Sample

	files *loopFiles
}

// loopFiles are the Loop's open logs, events and provenance.
type loopFiles struct {
	metrics, evals, samples *JSONL
	tb                      *tensorboard.Writer
	prov                    Provenance
	start                   time.Time
}

// Start opens a new run's logs in Dir (truncating any) and writes its
// provenance.
func (l *Loop) Start() error { return l.open(nil, 0) }

// open opens the logs: created empty (kept nil), or written back from
// kept and appended to (a resume from update resumedAt).
func (l *Loop) open(kept map[string][]byte, resumedAt int) (err error) {
	f := &loopFiles{start: time.Now()}
	l.files = f
	defer func() {
		if err != nil {
			l.closeFiles()
		}
	}()
	for _, log := range []struct {
		name string
		to   **JSONL
	}{{MetricsFile, &f.metrics}, {EvalFile, &f.evals}, {SamplesFile, &f.samples}} {
		path := filepath.Join(l.Dir, log.name)
		if kept == nil {
			*log.to, err = CreateJSONL(path)
		} else if err = WriteFile(path, kept[log.name]); err == nil {
			*log.to, err = AppendJSONL(path)
		}
		if err != nil {
			return err
		}
	}
	f.prov = Collect(f.start)
	f.prov.ResumedAt = resumedAt
	if err := WriteJSON(filepath.Join(l.Dir, ProvenanceFile), f.prov); err != nil {
		return err
	}
	if err := os.RemoveAll(filepath.Join(l.Dir, TBDir)); err != nil { // a resumed run's events are written again
		return err
	}
	f.tb, err = tensorboard.Create(filepath.Join(l.Dir, TBDir))
	return err
}

// Close closes the logs and records the end of this attempt in
// provenance.json.
func (l *Loop) Close() error {
	if l.files == nil {
		return nil
	}
	f := l.files
	f.prov.Finish(time.Now(), time.Since(f.start))
	err := WriteJSON(filepath.Join(l.Dir, ProvenanceFile), f.prov)
	if cerr := l.closeFiles(); err == nil {
		err = cerr
	}
	return err
}

func (l *Loop) closeFiles() error {
	var first error
	for _, j := range []*JSONL{l.files.metrics, l.files.evals, l.files.samples} {
		if j != nil {
			if err := j.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	if l.files.tb != nil {
		if err := l.files.tb.Close(); err != nil && first == nil {
			first = err
		}
	}
	l.files = nil
	return first
}

// Run runs the rest of the run (after Start or Resume): the evaluation at
// update 0 unless made, the updates with their evaluations and sets, then
// the test evaluation. When ctx ends it stops between two updates, saves
// the set and returns ErrInterrupted; a failed update saves nothing (its
// state may be half changed), so a resume starts from the last set.
func (l *Loop) Run(ctx context.Context) error {
	if len(l.Curve) == 0 {
		if err := l.evaluate(0); err != nil {
			return err
		}
	}
	for l.Done < l.Updates {
		if ctx.Err() != nil {
			return errors.Join(ErrInterrupted, l.saveSet("interrupted"))
		}
		start := time.Now()
		m, err := l.Trainer.Update()
		l.Skipped += m.SkippedSteps
		if err != nil {
			return err
		}
		l.Done++
		l.Metrics = append(l.Metrics, m)
		if err := l.files.metrics.Write(m); err != nil {
			return err
		}
		if err := l.files.tb.Scalars(int64(l.Done), metricScalars(m)); err != nil {
			return err
		}
		if l.OnUpdate != nil {
			l.OnUpdate(m, time.Since(start).Seconds())
		}
		if l.Done == l.Updates || (l.Eval.Every > 0 && l.Done%l.Eval.Every == 0) {
			if err := l.evaluate(l.Done); err != nil {
				return err
			}
			if err := l.saveSet("running"); err != nil {
				return err
			}
		}
	}
	if l.Eval.Test > 0 && l.Test == nil {
		p, err := l.play(tasks.Test, l.Eval.Test, rl.BothModes)
		if err != nil {
			return err
		}
		l.Test = &p.Modes
		if err := l.files.tb.Scalars(int64(l.Done), evalScalars("test", p.Modes)); err != nil {
			return err
		}
	}
	if l.KeepSet {
		return l.saveSet("complete")
	}
	if err := os.RemoveAll(l.SetDir); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	return nil
}

// saveSet writes the trainer's state to SetDir with status.
func (l *Loop) saveSet(status string) error {
	if l.Trainer == nil {
		return nil
	}
	info := maps.Clone(l.Info)
	if info == nil {
		info = map[string]string{}
	}
	info["status"] = status
	return SaveState(l.SetDir, l.Trainer, info)
}

// evaluate makes the in-training evaluation after update and adds it to
// the curve.
func (l *Loop) evaluate(update int) error {
	p, err := l.play(TrainingSplit(l.Eval.Split), l.Eval.Episodes, l.Modes)
	if err != nil {
		return err
	}
	l.Curve = append(l.Curve, p)
	return l.files.tb.Scalars(int64(update), evalScalars("eval", p.Modes))
}

// play evaluates the policy on the first episodes instances of split in
// each mode, from the run's seed, logging each mode's record and (for an
// in-training split) the first episodes' transcripts.
func (l *Loop) play(split tasks.Split, episodes int, modes []rl.EvalMode) (Point, error) {
	p := Point{Update: l.Done}
	var shown []Sample
	for _, mode := range modes {
		ec := rl.EvalConfig{Split: split, Episodes: episodes, Seed: l.Seed, Rollout: l.Rollout}
		ec.Rollout.Sampler = rl.EvalSampler(mode)
		start := time.Now()
		res, err := rl.Evaluate(l.Policy, l.Task, ec)
		if err != nil {
			return p, err
		}
		m := MeasuresOf(res.Summary)
		p.Set(mode, m)
		rec := EvalRecord{Update: l.Done, Split: split.String(), Mode: mode, Episodes: res.Summary.Episodes,
			Truncated: res.Truncated, Seconds: time.Since(start).Seconds(), Measures: *m}
		l.Evals = append(l.Evals, rec)
		if err := l.files.evals.Write(rec); err != nil {
			return p, err
		}
		var kept []Sample
		if split != tasks.Test {
			kept = Samples(l.Task, split, res, l.Done, mode)
			for _, smp := range kept {
				if err := l.files.samples.Write(smp); err != nil {
					return p, err
				}
			}
			if shown == nil || mode == rl.ModeSampled {
				shown = kept
			}
		}
		if l.OnEval != nil {
			l.OnEval(rec, kept)
		}
	}
	if split != tasks.Test {
		l.Shown = shown
	}
	return p, nil
}

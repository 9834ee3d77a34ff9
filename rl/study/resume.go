package study

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"arew/engine"
	"arew/rl"
	"arew/run"
	"arew/tasks"
)

// maxSummaryBytes caps the summary.json a resume reads back (a 4-arm,
// 5-seed study's is ~100 KB).
const maxSummaryBytes = 64 << 20

// loadPrevious reads what an earlier attempt of the study left in s.dir:
// its study.json must be s.cfg's, its summary.json (if any) gives the
// complete runs, and a base it built is reused. A run that did not
// complete is continued from its checkpoint set (ResumeDir) if it left
// one; the folder of any other is removed, to be done again.
func (s *study) loadPrevious() error {
	have, err := rl.ReadConfigFile(filepath.Join(s.dir, StudyFile))
	if err != nil {
		return inputErr(fmt.Errorf("study: resume: %w", err))
	}
	want, err := json.MarshalIndent(s.cfg, "", "  ")
	if err != nil {
		return fmt.Errorf("study: resume: %w", err)
	}
	if !bytes.Equal(bytes.TrimSpace(have), want) {
		return inputErr(fmt.Errorf("study: resume: %s holds a different study (its %s differs from this config)", s.dir, StudyFile))
	}
	s.done = map[string]map[uint64]RunSum{}
	data, err := engine.ReadFile(filepath.Join(s.dir, SummaryFile), maxSummaryBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("study: resume: %w", err)
	default:
		var prev Summary
		if err := json.Unmarshal(data, &prev); err != nil {
			return inputErr(fmt.Errorf("study: resume: %s: %w", SummaryFile, err))
		}
		for name, arm := range prev.Arms {
			for _, r := range arm.Runs {
				if r.Status == "complete" {
					if s.done[name] == nil {
						s.done[name] = map[uint64]RunSum{}
					}
					s.done[name][r.Seed] = r
				}
			}
		}
	}
	s.partial = map[string]map[uint64]bool{}
	for _, arm := range s.cfg.Arms {
		for _, seed := range s.cfg.Seeds {
			if _, ok := s.done[arm.Name][seed]; ok {
				continue
			}
			dir := s.runDir(arm.Name, seed)
			if _, err := os.Stat(filepath.Join(dir, ResumeDir, rl.ManifestFile)); err == nil {
				if s.partial[arm.Name] == nil {
					s.partial[arm.Name] = map[uint64]bool{}
				}
				s.partial[arm.Name][seed] = true
				continue
			}
			if err := os.RemoveAll(dir); err != nil {
				return fmt.Errorf("study: resume: %w", err)
			}
		}
	}
	if s.cfg.Base.Build != nil {
		if _, err := os.Stat(filepath.Join(s.dir, BaseFile)); err == nil {
			s.base = filepath.Join(s.dir, BaseFile)
		}
	}
	return nil
}

// restore puts a resumed run where its checkpoint set left it: the
// trainer's state (bitwise, rl.Trainer.RestoreState), and its logs cut
// back to the set's update k and written again, so the run goes on as if
// it had never stopped. metrics.jsonl keeps updates 1..k (Metrics.Update
// counts from 0); eval.jsonl and samples.jsonl keep the in-training
// evaluations at or before k (the set is saved after the evaluation at its
// update; the final test evaluation comes after it). The kept records
// rebuild the curve, the TensorBoard events and the report's transcripts.
func (o *oneRun) restore() error {
	m, err := o.tr.RestoreState(filepath.Join(o.dir, ResumeDir))
	if err != nil {
		return inputErr(fmt.Errorf("study: resume %s: %w (remove %s to run it again from the start)", o.name, err, o.dir))
	}
	k := m.Update
	var metrics []rl.Metrics
	var evals []EvalRecord
	var samples []Sample
	kept := map[string][]byte{}
	for _, l := range []struct {
		file string
		keep func(line []byte) (bool, error)
	}{
		{MetricsFile, func(line []byte) (bool, error) {
			var m rl.Metrics
			if err := json.Unmarshal(line, &m); err != nil || m.Update >= k {
				return false, err
			}
			metrics = append(metrics, m)
			return true, nil
		}},
		{EvalFile, func(line []byte) (bool, error) {
			var r EvalRecord
			if err := json.Unmarshal(line, &r); err != nil || r.Update > k || r.Split == tasks.Test.String() {
				return false, err
			}
			evals = append(evals, r)
			return true, nil
		}},
		{SamplesFile, func(line []byte) (bool, error) {
			var smp Sample
			if err := json.Unmarshal(line, &smp); err != nil || smp.Update > k || smp.Split == tasks.Test.String() {
				return false, err
			}
			samples = append(samples, smp)
			return true, nil
		}},
	} {
		if kept[l.file], err = run.KeptLines(filepath.Join(o.dir, l.file), l.keep); err != nil {
			return inputErr(fmt.Errorf("study: resume %s: %w", o.name, err))
		}
	}
	if len(metrics) != k || len(evals) == 0 {
		return inputErr(fmt.Errorf("study: resume %s: its logs hold %d updates and %d evaluations up to its checkpoint set's update %d "+
			"(remove %s to run it again from the start)", o.name, len(metrics), len(evals), k, o.dir))
	}
	if o.f, err = openRunFiles(o.dir, kept, k); err != nil {
		return err
	}
	o.r.Done = k
	o.s.updates += k
	fmt.Fprintf(o.s.out, "%s: continuing from its checkpoint set at update %d\n", o.name, k)
	return o.replay(metrics, evals, samples)
}

// replay rebuilds from a resumed run's kept records what the run held in
// memory and in its event file: the curve, the TensorBoard events in the
// order they were first written, and the transcripts the report shows.
func (o *oneRun) replay(metrics []rl.Metrics, evals []EvalRecord, samples []Sample) error {
	for _, e := range evals {
		if n := len(o.r.Curve); n == 0 || o.r.Curve[n-1].Update != e.Update {
			o.r.Curve = append(o.r.Curve, Point{Update: e.Update})
		}
		m := e.Measures
		o.r.Curve[len(o.r.Curve)-1].set(e.Mode, &m)
	}
	next := 0 // the next curve point to write
	writeEvals := func(upTo int) error {
		for ; next < len(o.r.Curve) && o.r.Curve[next].Update <= upTo; next++ {
			p := o.r.Curve[next]
			if err := o.f.tb.Scalars(int64(p.Update), evalScalars("eval", p.Modes)); err != nil {
				return err
			}
		}
		return nil
	}
	if err := writeEvals(0); err != nil {
		return err
	}
	for _, m := range metrics {
		if err := o.f.tb.Scalars(int64(m.Update+1), metricScalars(m)); err != nil {
			return err
		}
		if err := writeEvals(m.Update + 1); err != nil {
			return err
		}
	}
	if o.seed == o.s.cfg.Seeds[0] {
		var shown []Sample
		for _, smp := range samples {
			if smp.Mode == "sampled" {
				if len(shown) > 0 && shown[0].Update != smp.Update {
					shown = nil // a later evaluation's
				}
				shown = append(shown, smp)
			}
		}
		if shown != nil {
			if o.s.samples == nil {
				o.s.samples = map[string][]Sample{}
			}
			o.s.samples[o.arm] = shown
		}
	}
	return nil
}

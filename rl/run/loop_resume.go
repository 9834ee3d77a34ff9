package run

import (
	"fmt"
	"path/filepath"

	"arew/rl"
	"arew/tasks"
)

// Resume puts a Loop whose run stopped short where the checkpoint set in
// SetDir left it, instead of Start: the trainer's state (bitwise,
// RestoreState; a set without trainer state is one of update 0,
// written before any update, and the fresh trainer is that state), and
// its logs cut back to the set's update k and written again, so that Run
// goes on as if the run had never stopped. metrics.jsonl keeps updates
// 1..k (Metrics.Update counts from 0); eval.jsonl and samples.jsonl keep
// the in-training evaluations at or before k (Run saves a set after the
// evaluation at its update; the test evaluation comes after every set).
// A line written after the set (a kill between two sets) is dropped, to be
// written again, as is a last line a kill cut short. The kept records
// rebuild the fields under "What the run has done" and the TensorBoard
// events. Nothing is written before every file has been read and checked.
func (l *Loop) Resume() error {
	m, err := ReadManifest(l.SetDir)
	if err != nil {
		return err
	}
	if m.Has(rl.TrainerFile) {
		if m, err = RestoreState(l.SetDir, l.Trainer); err != nil {
			return err
		}
	} else if m.Update != 0 {
		return fmt.Errorf("the checkpoint set of update %d holds no trainer state", m.Update)
	}
	k := m.Update
	metrics, evals, samples, kept, err := readLogs(l.Dir, k)
	if err != nil {
		return err
	}
	if len(metrics) != k || len(evals) == 0 {
		return fmt.Errorf("its logs hold %d updates and %d evaluations up to its checkpoint set's update %d", len(metrics), len(evals), k)
	}
	if err := l.open(kept, k); err != nil {
		return err
	}
	l.setRecord(metrics, evals, samples)
	return l.replay()
}

// setRecord sets the fields under "What the run has done" from the
// records of its logs.
func (l *Loop) setRecord(metrics []rl.Metrics, evals []EvalRecord, samples []Sample) {
	l.Done, l.Metrics, l.Evals, l.Shown, l.Skipped = len(metrics), metrics, evals, latestShown(samples), 0
	for _, m := range metrics {
		l.Skipped += m.SkippedSteps
	}
	l.Curve, l.Test = curveOf(evals)
}

// readLogs reads the run's logs in dir: every record, or with upTo ≥ 0
// only those a checkpoint set of update upTo covers (updates 1..upTo, the
// in-training evaluations at or before it), with the lines kept by name.
func readLogs(dir string, upTo int) (metrics []rl.Metrics, evals []EvalRecord, samples []Sample, kept map[string][]byte, err error) {
	covered := func(update int, split string) bool {
		return upTo < 0 || update <= upTo && split != tasks.Test.String()
	}
	kept = map[string][]byte{}
	path := func(name string) string { return filepath.Join(dir, name) }
	if metrics, kept[MetricsFile], err = ReadRecords(path(MetricsFile), func(m rl.Metrics) bool { return upTo < 0 || m.Update < upTo }); err != nil {
		return
	}
	if evals, kept[EvalFile], err = ReadRecords(path(EvalFile), func(r EvalRecord) bool { return covered(r.Update, r.Split) }); err != nil {
		return
	}
	samples, kept[SamplesFile], err = ReadRecords(path(SamplesFile), func(s Sample) bool { return covered(s.Update, s.Split) })
	return
}

// replay writes the TensorBoard events of the kept records again, in the
// order Run first wrote them.
func (l *Loop) replay() error {
	next := 0 // the next point of the curve to write
	writePoints := func(upTo int) error {
		for ; next < len(l.Curve) && l.Curve[next].Update <= upTo; next++ {
			p := l.Curve[next]
			if err := l.files.tb.Scalars(int64(p.Update), evalScalars("eval", p.Modes)); err != nil {
				return err
			}
		}
		return nil
	}
	if err := writePoints(0); err != nil {
		return err
	}
	for _, m := range l.Metrics {
		if err := l.files.tb.Scalars(int64(m.Update+1), metricScalars(m)); err != nil {
			return err
		}
		if err := writePoints(m.Update + 1); err != nil {
			return err
		}
	}
	return nil
}

// curveOf is the curve of the in-training evaluations among evals, and
// the test evaluation (nil: none).
func curveOf(evals []EvalRecord) (curve []Point, test *Modes) {
	var final Point
	for _, e := range evals {
		m := e.Measures
		if e.Split == tasks.Test.String() {
			final.Set(e.Mode, &m)
			test = &final.Modes
			continue
		}
		if n := len(curve); n == 0 || curve[n-1].Update != e.Update {
			curve = append(curve, Point{Update: e.Update})
		}
		curve[len(curve)-1].Set(e.Mode, &m)
	}
	return curve, test
}

// latestShown are the transcripts of the latest evaluation among samples,
// of its sampled mode when it has one.
func latestShown(samples []Sample) []Sample {
	if len(samples) == 0 {
		return nil
	}
	last := samples[len(samples)-1].Update
	var greedy, sampled []Sample
	for _, smp := range samples {
		switch {
		case smp.Update != last:
		case smp.Mode == rl.ModeSampled:
			sampled = append(sampled, smp)
		default:
			greedy = append(greedy, smp)
		}
	}
	if sampled != nil {
		return sampled
	}
	return greedy
}

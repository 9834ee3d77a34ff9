package experiment

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"arew/model"
	"arew/rl"
	"arew/run"
)

// openResume reads the checkpoint set of the run folder dir (it must agree
// with its manifest, rl.ReadCheckpointSet) and takes its policy and
// update, so that a set that cannot be continued is a usage error before
// anything is written.
func (e *Experiment) openResume(dir string) error {
	m, files, err := rl.ReadCheckpointSet(filepath.Join(dir, CheckpointDir))
	if err != nil {
		return inputErrorf("-resume: %v", err)
	}
	if m.Info["phase"] != "rl" {
		return inputErrorf("-resume %s: the run stopped before RL began (status %q), so there is no RL state to continue: run it again with -force",
			dir, m.Info["status"])
	}
	if m.Info["run"] != e.cfg.Name {
		return inputErrorf("-resume %s: the checkpoint set is run %q's, the config.json run %q's", dir, m.Info["run"], e.cfg.Name)
	}
	k, n := m.Update, e.cfg.Updates
	switch {
	case n < k:
		return inputErrorf("-resume %s: -updates %d is fewer than the %d the run has done", dir, n, k)
	case n == k && m.Info["status"] == "complete":
		return inputErrorf("-resume %s: the run is complete at %d updates: give -updates N > %d to extend it", dir, k, k)
	}
	policy, _, err := model.LoadBytes(filepath.Join(dir, CheckpointDir, rl.PolicyFile), files[rl.PolicyFile])
	if err != nil {
		return inputErrorf("-resume: %v", err)
	}
	if policy.Config != e.cfg.Model.Policy {
		return inputErrorf("-resume %s: the checkpoint's policy is not the one config.json describes", dir)
	}
	e.policy, e.resume, e.updates, e.dir = policy, m, k, dir
	return e.readLogs()
}

// readLogs reads a resumed run's logs back to where its checkpoint set
// left them: metrics.jsonl keeps the updates before the set's, eval.jsonl
// and samples.jsonl the evaluations before it (and at it, if the run had
// completed there); a line written after the set (a kill between two
// checkpoints) is dropped, to be written again, as is a last line a kill
// cut short. The kept records are read for the report, and the kept lines
// held for reopenLogs; nothing is written, so a log that cannot be read
// is a run.InputError with the folder untouched.
func (e *Experiment) readLogs() error {
	k, complete := e.updates, e.resume.Info["status"] == "complete"
	// An evaluation belongs to the set if it came before the set's update,
	// or at it in a run that completed there (a base one always does).
	belongs := func(update int, base bool) bool { return update < k || update == k && (complete || base) }
	e.kept = map[string][]byte{}
	logs := []struct {
		file     string
		optional bool // absent when the run had no SFT, or predates samples.jsonl
		keep     func(line []byte) (bool, error)
	}{
		{SFTFile, true, func(line []byte) (bool, error) {
			var m rl.SFTMetrics
			err := json.Unmarshal(line, &m)
			e.sftLog = append(e.sftLog, m)
			return true, err
		}},
		{MetricsFile, false, func(line []byte) (bool, error) {
			var m rl.Metrics
			if err := json.Unmarshal(line, &m); err != nil || m.Update >= k {
				return false, err
			}
			e.skipped += m.SkippedSteps
			if e.last = append(e.last, m); len(e.last) > lastWindow {
				e.last = e.last[1:]
			}
			return true, nil
		}},
		{EvalFile, false, func(line []byte) (bool, error) {
			var r EvalRecord
			if err := json.Unmarshal(line, &r); err != nil || !belongs(r.Update, r.Phase == "base") {
				return false, err
			}
			e.evals = append(e.evals, r)
			return true, nil
		}},
		{SamplesFile, true, func(line []byte) (bool, error) {
			var smp rl.Sample
			if err := json.Unmarshal(line, &smp); err != nil || !belongs(smp.Update, smp.Update == 0) {
				return false, err
			}
			if smp.Mode == e.shownMode() {
				if len(e.shown) > 0 && e.shown[0].Update != smp.Update {
					e.shown = nil // a later evaluation's
				}
				e.shown = append(e.shown, smp)
			}
			return true, nil
		}},
	}
	for _, l := range logs {
		kept, err := run.KeptLines(filepath.Join(e.dir, l.file), l.keep)
		if errors.Is(err, fs.ErrNotExist) && l.optional {
			continue
		}
		if err != nil {
			return inputErrorf("-resume %s: %v", e.dir, err)
		}
		e.kept[l.file] = kept
	}
	return nil
}

// reopenLogs writes back the lines readLogs kept (each log atomically) and
// opens the RL logs for appending.
func (e *Experiment) reopenLogs() error {
	for _, file := range []string{SFTFile, MetricsFile, EvalFile, SamplesFile} {
		if kept, ok := e.kept[file]; ok || file == SamplesFile {
			if err := rl.WriteFile(filepath.Join(e.dir, file), kept); err != nil {
				return fmt.Errorf("resume: %w", err)
			}
		}
	}
	var err error
	if e.metrics, err = rl.AppendJSONL(filepath.Join(e.dir, MetricsFile)); err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	if e.evalLog, err = rl.AppendJSONL(filepath.Join(e.dir, EvalFile)); err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	if e.samples, err = rl.AppendJSONL(filepath.Join(e.dir, SamplesFile)); err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	fmt.Fprintf(e.out, "\n== resuming at update %d of %d (checkpoint status %s)\n", e.updates, e.cfg.Updates, e.resume.Info["status"])
	return nil
}

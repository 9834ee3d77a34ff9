package experiment

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"arew/engine"
	"arew/model"
	"arew/rl"
)

// maxLogBytes caps a log a resumed run reads back (a 10,000-update
// metrics.jsonl is ~20 MB).
const maxLogBytes = 1 << 30

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
	e.policy, e.resume, e.updates = policy, m, k
	return nil
}

// reopenLogs takes up a resumed run's logs where its checkpoint set left
// them: metrics.jsonl keeps the updates before the set's, eval.jsonl and
// samples.jsonl the evaluations before it (and at it, if the run had
// completed there); a
// line written after the set (a kill between two checkpoints) is dropped,
// to be written again. The kept records are read back for the report, and
// the logs reopened for appending.
func (e *Experiment) reopenLogs() error {
	k, complete := e.updates, e.resume.Info["status"] == "complete"
	_, err := keepLines(filepath.Join(e.dir, SFTFile), func(line []byte) (bool, error) {
		var m rl.SFTMetrics
		err := json.Unmarshal(line, &m)
		e.sftLog = append(e.sftLog, m)
		return true, err
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) { // no SFT, no sft.jsonl
		return fmt.Errorf("resume: %w", err)
	}
	if _, err := keepLines(filepath.Join(e.dir, MetricsFile), func(line []byte) (bool, error) {
		var m rl.Metrics
		if err := json.Unmarshal(line, &m); err != nil || m.Update >= k {
			return false, err
		}
		e.skipped += m.SkippedSteps
		if e.last = append(e.last, m); len(e.last) > lastWindow {
			e.last = e.last[1:]
		}
		return true, nil
	}); err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	// An evaluation belongs to the set if it came before the set's update,
	// or at it in a run that completed there (a base one always does).
	belongs := func(update int, base bool) bool { return update < k || update == k && (complete || base) }
	if _, err := keepLines(filepath.Join(e.dir, EvalFile), func(line []byte) (bool, error) {
		var r EvalRecord
		if err := json.Unmarshal(line, &r); err != nil || !belongs(r.Update, r.Phase == "base") {
			return false, err
		}
		e.evals = append(e.evals, r)
		return true, nil
	}); err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	samplesPath := filepath.Join(e.dir, SamplesFile)
	_, err = keepLines(samplesPath, func(line []byte) (bool, error) {
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
	})
	if errors.Is(err, fs.ErrNotExist) {
		err = rl.WriteFile(samplesPath, nil) // a run from before samples.jsonl
	}
	if err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	if e.metrics, err = rl.AppendJSONL(filepath.Join(e.dir, MetricsFile)); err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	if e.evalLog, err = rl.AppendJSONL(filepath.Join(e.dir, EvalFile)); err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	if e.samples, err = rl.AppendJSONL(samplesPath); err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	fmt.Fprintf(e.out, "\n== resuming at update %d of %d (checkpoint status %s)\n", k, e.cfg.Updates, e.resume.Info["status"])
	return nil
}

// keepLines rewrites the JSON-lines file path (atomically) with the lines
// keep accepts, and returns them. A last line without its newline (a write
// cut short) is dropped.
func keepLines(path string, keep func(line []byte) (bool, error)) ([][]byte, error) {
	data, err := engine.ReadFile(path, maxLogBytes)
	if err != nil {
		return nil, err
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	var kept [][]byte
	for _, line := range lines {
		if !bytes.HasSuffix(line, []byte("\n")) {
			continue
		}
		ok, err := keep(line)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if ok {
			kept = append(kept, line)
		}
	}
	if err := rl.WriteFile(path, bytes.Join(kept, nil)); err != nil {
		return nil, err
	}
	return kept, nil
}

package study

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"arew/rl/run"
)

// maxSummaryBytes caps the summary.json a resume reads back (a 4-arm,
// 5-seed study's is ~100 KB).
const maxSummaryBytes = 64 << 20

// loadPrevious reads what an earlier attempt of the study left in s.dir:
// its study.json must be s.cfg's, its summary.json (if any) gives the
// complete runs, and a base it built is reused. A run that did not
// complete is continued from its checkpoint set if it left one that RL
// wrote (resumable); the folder of any other is removed, to be done
// again.
func (s *study) loadPrevious() error {
	have, err := run.ReadConfigFile(filepath.Join(s.dir, StudyFile))
	if err != nil {
		return run.InputErr(fmt.Errorf("study: resume: %w", err))
	}
	want, err := json.MarshalIndent(s.cfg, "", "  ")
	if err != nil {
		return fmt.Errorf("study: resume: %w", err)
	}
	if !bytes.Equal(bytes.TrimSpace(have), want) {
		return run.InputErr(fmt.Errorf("study: resume: %s holds a different study (its %s differs from this config)", s.dir, StudyFile))
	}
	s.done = map[string]map[uint64]RunSum{}
	var prev Summary
	switch err := run.ReadJSON(filepath.Join(s.dir, SummaryFile), maxSummaryBytes, &prev); {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return run.InputErr(fmt.Errorf("study: resume: %w", err))
	default:
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
			dir := filepath.Join(s.dir, arm.Name, runName(seed))
			if resumable(dir) {
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

// resumable reports whether the run folder dir holds a checkpoint set of
// RL to continue from: one written after an update or an evaluation, or
// on an interrupt. A set of a run that completed but is missing from the
// summary (a kill just after it) is not: the run is done again, as is a
// folder an older layout left.
func resumable(dir string) bool {
	m, err := run.ReadManifest(filepath.Join(dir, run.CheckpointDir))
	return err == nil && m.Info["phase"] == "rl" && m.Info["status"] != "complete"
}

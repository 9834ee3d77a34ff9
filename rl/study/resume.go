package study

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"arew/rl/run"
)

// loadPrevious reads what an earlier attempt of the study left in s.dir
// (whose study.json run.Sweep.Open found to be s.cfg's): the runs its
// summary.json lists as complete, by arm and seed; a base it built is
// reused.
func (s *study) loadPrevious() (map[string]map[uint64]RunSum, error) {
	done := map[string]map[uint64]RunSum{}
	var prev Summary
	switch err := run.ReadJSON(filepath.Join(s.dir, SummaryFile), run.MaxSummaryBytes, &prev); {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, run.InputErr(fmt.Errorf("study: resume: %w", err))
	default:
		for name, arm := range prev.Arms {
			for _, r := range arm.Runs {
				if r.Status == "complete" {
					if done[name] == nil {
						done[name] = map[uint64]RunSum{}
					}
					done[name][r.Seed] = r
				}
			}
		}
	}
	if s.cfg.Base.Build != nil {
		if _, err := os.Stat(filepath.Join(s.dir, BaseFile)); err == nil {
			s.base = filepath.Join(s.dir, BaseFile)
		}
	}
	return done, nil
}

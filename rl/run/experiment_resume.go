package run

import (
	"errors"
	"io/fs"
	"path/filepath"

	"arew/model"
	"arew/rl"
)

// openResume reads the checkpoint set of the run folder dir (it must agree
// with its manifest, ReadCheckpointSet) and takes its policy and
// update, so that a set that cannot be continued is a usage error before
// anything is written.
func (e *Experiment) openResume(dir string) error {
	m, files, err := ReadCheckpointSet(filepath.Join(dir, CheckpointDir))
	if err != nil {
		return InputErrorf("-resume: %v", err)
	}
	if m.Info["phase"] != "rl" {
		return InputErrorf("-resume %s: the run stopped before RL began (status %q), so there is no RL state to continue: run it again with -force",
			dir, m.Info["status"])
	}
	if m.Info["run"] != e.cfg.Name {
		return InputErrorf("-resume %s: the checkpoint set is run %q's, the config.json run %q's", dir, m.Info["run"], e.cfg.Name)
	}
	k, n := m.Update, e.cfg.Updates
	switch {
	case n < k:
		return InputErrorf("-resume %s: -updates %d is fewer than the %d the run has done", dir, n, k)
	case n == k && m.Info["status"] == "complete":
		return InputErrorf("-resume %s: the run is complete at %d updates: give -updates N > %d to extend it", dir, k, k)
	}
	policy, _, err := model.LoadBytes(filepath.Join(dir, CheckpointDir, rl.PolicyFile), files[rl.PolicyFile])
	if err != nil {
		return InputErrorf("-resume: %v", err)
	}
	if policy.Config != e.cfg.Model.Policy {
		return InputErrorf("-resume %s: the checkpoint's policy is not the one config.json describes", dir)
	}
	e.policy, e.resume, e.dir = policy, m, dir
	return e.readSFTLog()
}

// readSFTLog reads a resumed run's SFT log for the report (a run without
// SFT has none); the RL logs are Loop's to cut back and reopen.
func (e *Experiment) readSFTLog() error {
	var err error
	e.sftLog, _, err = ReadRecords[rl.SFTMetrics](filepath.Join(e.dir, SFTFile), nil)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return InputErrorf("-resume %s: %v", e.dir, err)
	}
	return nil
}

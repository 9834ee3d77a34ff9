package run

import (
	"fmt"
	"os"
	"strconv"

	"arew/rl"
	"arew/tasks"
)

// The files of a run folder, each written through
// rl's run-file writers (whole files atomically, logs one JSON line per
// write):
//
//	config.json          the resolved Config
//	sft.jsonl            one rl.SFTMetrics per SFT epoch
//	metrics.jsonl        one rl.Metrics per RL update   (Loop)
//	eval.jsonl           one EvalRecord per evaluation and mode
//	samples.jsonl        one Sample per transcribed evaluation episode
//	tb/                  the same as TensorBoard events
//	provenance.json      where and when the run ran (Provenance)
//	checkpoints/         base.safetensors and the latest checkpoint set
//	report.md            the tables
const (
	ConfigFile    = "config.json"
	SFTFile       = "sft.jsonl"
	ReportFile    = "report.md"
	CheckpointDir = "checkpoints"

	BasePolicyFile = "base.safetensors" // the policy RL starts from (after SFT)
	// The latest checkpoint set (SaveState): policy, critic,
	// KL reference, optimiser states, trainer.json, then manifest.json.
	PolicyFile = rl.PolicyFile
)

// ClearDir refuses an existing non-empty folder dir (an InputError)
// unless force, which removes it; it makes nothing.
func ClearDir(dir string, force bool) error {
	entries, err := os.ReadDir(dir)
	switch {
	case err == nil && len(entries) > 0 && !force:
		return InputErrorf("folder %s exists and is not empty: choose another -name, or -force to replace it", dir)
	case err == nil && len(entries) > 0:
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("replace folder %s: %w", dir, err)
		}
	case err != nil && !os.IsNotExist(err):
		return fmt.Errorf("folder %s: %w", dir, err)
	}
	return nil
}

// PrepareDir makes the folder of a run, a study or an ACT sweep after
// ClearDir.
func PrepareDir(dir string, force bool) error {
	if err := ClearDir(dir, force); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("folder %s: %w", dir, err)
	}
	return nil
}

// phase names an evaluation of a run of updates for the report: base
// (before RL), rl (every Eval.Every updates), final (after the last), or
// test.
func phase(r EvalRecord, updates int) string {
	switch {
	case r.Split == tasks.Test.String():
		return "test"
	case r.Update == 0:
		return "base"
	case r.Update == updates:
		return "final"
	}
	return "rl"
}

// ckptMeta is the metadata every checkpoint file of a run carries.
func ckptMeta(run string, update int, role string) map[string]string {
	return map[string]string{"run": run, "update": strconv.Itoa(update), "role": role}
}

package experiment

import (
	"fmt"
	"os"
	"path/filepath"
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
//	metrics.jsonl        one rl.Metrics per RL update
//	eval.jsonl           one EvalRecord per evaluation and mode
//	samples.jsonl        one Sample per transcribed evaluation episode
//	checkpoints/         base.safetensors and the latest checkpoint set
//	report.md            the tables
const (
	ConfigFile    = "config.json"
	SFTFile       = "sft.jsonl"
	MetricsFile   = "metrics.jsonl"
	EvalFile      = "eval.jsonl"
	SamplesFile   = "samples.jsonl"
	ReportFile    = "report.md"
	CheckpointDir = "checkpoints"

	BasePolicyFile = "base.safetensors" // the policy RL starts from (after SFT)
	// The latest checkpoint set (rl.Trainer.SaveState): policy, critic,
	// KL reference, optimiser states, trainer.json, then manifest.json.
	PolicyFile = rl.PolicyFile
)

// prepareRunDir makes dir (and its checkpoints folder), refusing an
// existing non-empty dir unless force, which removes it first.
func prepareRunDir(dir string, force bool) error {
	entries, err := os.ReadDir(dir)
	switch {
	case err == nil && len(entries) > 0 && !force:
		return inputErrorf("run folder %s exists and is not empty: choose another -name, or -force to replace it", dir)
	case err == nil && len(entries) > 0:
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("replace run folder: %w", err)
		}
	case err != nil && !os.IsNotExist(err):
		return fmt.Errorf("run folder %s: %w", dir, err)
	}
	if err := os.MkdirAll(filepath.Join(dir, CheckpointDir), 0o755); err != nil {
		return fmt.Errorf("run folder: %w", err)
	}
	return nil
}

type num = rl.Num

// EvalRecord is one line of eval.jsonl: one evaluation of the policy in
// one mode (the means of tasks.Summary over the validation instances).
type EvalRecord struct {
	Update    int     `json:"update"` // RL updates done before it
	Phase     string  `json:"phase"`  // base (before RL), rl (every Eval.Every), final
	Mode      string  `json:"mode"`   // greedy or sampled
	Episodes  int     `json:"episodes"`
	Success   num     `json:"success"`
	Reward    num     `json:"reward"`
	ASProxy   num     `json:"as_proxy"`
	BTProxy   num     `json:"bt_proxy"`
	IAS       num     `json:"i_as"`
	CBT       num     `json:"c_bt"`
	Evidence  num     `json:"evidence"`
	Turns     num     `json:"turns"`
	Malformed num     `json:"malformed"`
	Repeats   num     `json:"repeats"`
	Truncated int     `json:"truncated"`
	Seconds   float64 `json:"seconds"`
}

func newEvalRecord(update int, phase, mode string, s tasks.Summary, truncated int, seconds float64) EvalRecord {
	return EvalRecord{Update: update, Phase: phase, Mode: mode, Episodes: s.Episodes,
		Success: num(s.Success), Reward: num(s.Reward), ASProxy: num(s.ASProxy), BTProxy: num(s.BTProxy),
		IAS: num(s.IAS), CBT: num(s.CBT), Evidence: num(s.Evidence), Turns: num(s.Turns),
		Malformed: num(s.Malformed), Repeats: num(s.Repeats), Truncated: truncated, Seconds: seconds}
}

// ckptMeta is the metadata every checkpoint file of a run carries.
func ckptMeta(run string, update int, role string) map[string]string {
	return map[string]string{"run": run, "update": strconv.Itoa(update), "role": role}
}

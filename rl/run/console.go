package run

import (
	"fmt"
	"path/filepath"
	"time"

	"arew/rl"
)

// The console: a header per phase, one line per SFT epoch and per update
// (each ending with the phase's elapsed time and ETA), one per
// evaluation, the main table at the end. On a terminal a status line
// below them shows the step in progress (arew/rl/progress). Everything
// printed is also in the run folder.

func (e *Experiment) printHeader() {
	c := e.cfg
	fmt.Fprintf(e.out, "== run %s → %s\n", c.Name, e.dir)
	fmt.Fprintf(e.out, "task   %s", c.Task)
	if c.TaskConfig != nil {
		fmt.Fprintf(e.out, " %s", c.TaskConfig)
	}
	fmt.Fprintf(e.out, " (seed %d)\nmodel  %s\nSFT    %s\nRL     %s\neval   %d validation instances, %s, every %d updates\n",
		c.Seed, e.modelLine(), e.sftLine(), e.algoLine(), c.Eval.Episodes, c.Eval.Modes, c.Eval.Every)
}

func (e *Experiment) printRLHeader() {
	fmt.Fprintf(e.out, "\n== RL: %s\n", e.algoLine())
	fmt.Fprintf(e.out, "%6s %7s %7s %7s %7s %8s %6s %7s %7s %6s\n",
		"update", "reward", "success", "AS", "BT", "KL", "clip", "entropy", "AREW", "sec")
}

// printUpdate is one line per update: the training rollouts' means
// (sampled at temperature 1), the approximate KL between the rollout
// policy and the updated one, the clip fraction, the entropy, the mean
// AREW correction, the update's wall time, then done updates of the
// phase's total with the elapsed time and the ETA.
func (e *Experiment) printUpdate(done int, m rl.Metrics, seconds float64) {
	line := fmt.Sprintf("%6d %7s %7s %7s %7s %8s %6s %7s %7s %6.1f", m.Update+1,
		f3(m.Reward), f3(m.Success), f3(m.ASProxy), f3(m.BTProxy), Fixed(m.ApproxKL, 5),
		f3(m.ClipFrac), f3(m.Entropy), Fixed(m.AREWMeanAbs, 4), seconds)
	if m.SkippedSteps > 0 {
		line += fmt.Sprintf("  (%d optimiser steps skipped: non-finite loss or gradient)", m.SkippedSteps)
	}
	e.meter.Line(done, line)
}

// printf prints a permanent line, below the status line of the phase in
// progress if there is one.
func (e *Experiment) printf(format string, args ...any) {
	if e.meter != nil {
		e.meter.Printf(format, args...)
		return
	}
	fmt.Fprintf(e.out, format, args...)
}

func (e *Experiment) printEval(r EvalRecord) {
	e.printf("eval @ %d %-7s success %s  reward %s  AS %s  BT %s  I_AS %s  C_BT %s  evidence %s  malformed %s  (%d episodes, %.1f s)\n",
		r.Update, r.Mode, f3(float64(r.Success)), f3(float64(r.Reward)), f3(float64(r.ASProxy)), f3(float64(r.BTProxy)),
		f3(float64(r.IAS)), f3(float64(r.CBT)), f3(float64(r.Evidence)), f2(float64(r.Malformed)), r.Episodes, r.Seconds)
}

func (e *Experiment) printFinal() {
	fmt.Fprintf(e.out, "\n== done in %s: base vs after RL (validation split)\n", time.Since(e.start).Round(time.Second))
	fmt.Fprint(e.out, e.table(e.mainRows()))
	fmt.Fprintf(e.out, "\noutputs in %s: %s, %s, %s, %s, %s/\n", e.dir, ConfigFile, MetricsFile, EvalFile, ReportFile, CheckpointDir)
	fmt.Fprintf(e.out, "repeat with: go run ./cmd/train -config %s -name <new name>\n", filepath.Join(e.dir, ConfigFile))
}

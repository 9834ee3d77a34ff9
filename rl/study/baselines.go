package study

import (
	"context"
	"fmt"

	"arew/rl/run"
	"arew/tasks"
)

// Baseline is a scripted policy's evaluation on the study's test
// instances, for scale: random (valid but uninformed), strong (greedy
// information gain and exact Bayes) and the best constant answer (success
// only; the other measures are null).
type Baseline struct {
	Name     string    `json:"name"`
	Measures *Measures `json:"measures"`
}

// scriptedBaselines plays random and strong on the first n instances of
// split (from the first seed) and finds the best constant answer on them
// (run.ScriptedBaselines).
func scriptedBaselines(ctx context.Context, task tasks.Task, c Config, split tasks.Split, n int) ([]Baseline, error) {
	if ctx.Err() != nil {
		return nil, run.ErrInterrupted
	}
	bs, err := run.ScriptedBaselines(task, []tasks.PolicySpec{{Kind: "random"}, {Kind: "strong"}}, split, n, c.Seeds[0])
	if err != nil {
		return nil, fmt.Errorf("study: %w", err)
	}
	out := make([]Baseline, len(bs))
	for i, b := range bs {
		out[i] = baselineOf(b)
	}
	return out, nil
}

// baselineOf is an run.Baseline as the summary holds it (a constant's
// measures other than success are null).
func baselineOf(b run.Baseline) Baseline {
	return Baseline{Name: b.Label(), Measures: run.MeasuresOf(b.Summary)}
}

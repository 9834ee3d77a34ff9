package study

import (
	"context"
	"fmt"
	"math"

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

// maxScriptedTurns bounds a scripted episode (they end well before).
const maxScriptedTurns = 1000

// scriptedBaselines plays random and strong on the first Eval.Episodes
// test instances (from the first seed) and finds the best constant answer
// on them.
func scriptedBaselines(ctx context.Context, task tasks.Task, c Config) ([]Baseline, error) {
	var out []Baseline
	n := c.Eval.Episodes
	for _, kind := range []string{"random", "strong"} {
		if ctx.Err() != nil {
			return out, ErrInterrupted
		}
		pol, err := task.Scripted(tasks.PolicySpec{Kind: kind})
		if err != nil {
			return out, fmt.Errorf("study: baselines: %w", err)
		}
		s, err := tasks.Evaluate(task, pol, tasks.Test, n, c.Seeds[0], maxScriptedTurns)
		if err != nil {
			return out, fmt.Errorf("study: baselines: %w", err)
		}
		out = append(out, Baseline{Name: "scripted " + kind, Measures: measuresOf(s)})
	}
	bc, err := bestConstant(task, n)
	if err != nil {
		return out, fmt.Errorf("study: baselines: %w", err)
	}
	return append(out, bc), nil
}

// bestConstant is the best constant answer on the first n test instances:
// success only, the other measures null.
func bestConstant(task tasks.Task, n int) (Baseline, error) {
	ans, succ, err := task.BestConstant(tasks.Test, n)
	if err != nil {
		return Baseline{}, fmt.Errorf("best constant: %w", err)
	}
	nan := Num(math.NaN())
	return Baseline{Name: "best constant (" + ans + ")", Measures: &Measures{Success: Num(succ),
		ASProxy: nan, Evidence: nan, IAS: nan, CBT: nan, Reward: nan, BTProxy: nan, Turns: nan, Malformed: nan}}, nil
}

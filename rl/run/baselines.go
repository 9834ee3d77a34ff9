package run

import (
	"fmt"
	"math"

	"arew/tasks"
)

// MaxScriptedTurns bounds a scripted episode (they end well before).
const MaxScriptedTurns = 1000

// Baseline is a scripted policy's evaluation on the first instances of a
// split, for scale beside a trained policy's; Constant marks the best
// constant answer, whose Summary holds its success only (the other
// measures are NaN).
type Baseline struct {
	Name     string // the policy's name, or the constant answer
	Constant bool
	Summary  tasks.Summary
}

// Label is the baseline as a table row names it: "scripted <name>" or
// "best constant (<answer>)".
func (b Baseline) Label() string {
	if b.Constant {
		return "best constant (" + b.Name + ")"
	}
	return "scripted " + b.Name
}

// ScriptedBaselines plays each of the task's scripted policies in specs on
// the first n instances of split (their randomness from seed), then finds
// the best constant answer on the same instances.
func ScriptedBaselines(task tasks.Task, specs []tasks.PolicySpec, split tasks.Split, n int, seed uint64) ([]Baseline, error) {
	var out []Baseline
	for _, spec := range specs {
		pol, err := task.Scripted(spec)
		if err != nil {
			return out, fmt.Errorf("baselines: %w", err)
		}
		s, err := tasks.Evaluate(task, pol, split, n, seed, MaxScriptedTurns)
		if err != nil {
			return out, fmt.Errorf("baselines: %w", err)
		}
		out = append(out, Baseline{Name: pol.Name(), Summary: s})
	}
	ans, succ, err := task.BestConstant(split, n)
	if err != nil {
		return out, fmt.Errorf("baselines: best constant: %w", err)
	}
	nan := math.NaN() // a constant answer has no turns to measure
	return append(out, Baseline{Name: ans, Constant: true, Summary: tasks.Summary{
		Episodes: n, Success: succ, Reward: nan, ASProxy: nan, BTProxy: nan, IAS: nan, CBT: nan,
		Evidence: nan, Turns: nan, Malformed: nan, Repeats: nan}}), nil
}

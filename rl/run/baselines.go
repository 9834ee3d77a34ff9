package run

import (
	"fmt"
	"math"

	"arew/tasks"
)

// MaxScriptedTurns bounds a scripted episode (they end well before).
const MaxScriptedTurns = 1000

// Baseline is a scripted policy's evaluation on the first instances of a
// split, for scale beside a trained policy's: the record of every report
// and summary that shows one. Name is "scripted <policy>", or "best
// constant (<answer>)", whose measures other than success are null.
type Baseline struct {
	Name     string    `json:"name"`
	Measures *Measures `json:"measures"`
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
		out = append(out, Baseline{Name: "scripted " + pol.Name(), Measures: MeasuresOf(s)})
	}
	ans, succ, err := task.BestConstant(split, n)
	if err != nil {
		return out, fmt.Errorf("baselines: best constant: %w", err)
	}
	nan := Num(math.NaN()) // a constant answer has no turns to measure
	return append(out, Baseline{Name: "best constant (" + ans + ")", Measures: &Measures{Success: Num(succ), Reward: nan,
		ASProxy: nan, Evidence: nan, IAS: nan, CBT: nan, BTProxy: nan, Turns: nan, Malformed: nan, Repeats: nan}}), nil
}

package study

import (
	"maps"
	"slices"
	"strconv"

	"arew/rl"
	"arew/rl/run"
)

// A task's own counts (run.Measures.Extra: telecom's tool errors and
// tool-turn ratio) get the study's curves and a final table of their own
// beside the five measures; a study of a task without any has neither.

// extraMeasures are the own counts any evaluation of the study holds, by
// key in sorted order.
func (s *Summary) extraMeasures() []run.Measure {
	keys := map[string]bool{}
	add := func(ms *run.Modes) {
		if ms == nil {
			return
		}
		for _, m := range []*run.Measures{ms.Greedy, ms.Sampled} {
			if m != nil {
				for k := range m.Extra {
					keys[k] = true
				}
			}
		}
	}
	for _, a := range s.Arms {
		for i := range a.Runs {
			r := &a.Runs[i]
			add(&r.Base)
			add(r.Final)
			add(r.Test)
			for j := range r.Curve {
				add(&r.Curve[j].Modes)
			}
		}
	}
	var out []run.Measure
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		out = append(out, run.ExtraMeasure(k))
	}
	return out
}

// ExtraTestTable is TestTable for the task's own counts: the final test
// evaluation, mean ± std over the complete runs of each arm, greedy and
// sampled. Empty when the task has none or no run has a test evaluation.
func (s *Summary) ExtraTestTable() string {
	extras := s.extraMeasures()
	if len(extras) == 0 {
		return ""
	}
	header := []string{"arm", "mode", "runs"}
	for _, m := range extras {
		header = append(header, m.Label)
	}
	var rows [][]string
	for _, name := range s.ArmOrder {
		for _, mode := range rl.BothModes {
			evals := s.evals(name, mode, func(r *RunSum) *run.Modes { return r.Test })
			if len(evals) > 0 {
				rows = append(rows, append([]string{name, string(mode), strconv.Itoa(len(evals))}, meanStdOf(extras, evals)...))
			}
		}
	}
	return run.TableOr("", header, 2, rows)
}

package study

import (
	"arew/rl"
	"arew/rl/run"
	"fmt"
)

// Table is the Markdown table of mean ± std over the seeds, per arm, of
// the base and the final evaluations (complete runs only), greedy and
// sampled, for the Reported measures.
func (s *Summary) Table() string {
	header := run.ReportedHeader("arm", "policy", "mode", "runs")
	var rows [][]string
	for _, name := range s.ArmOrder {
		for _, phase := range []string{"base", "final"} {
			for _, mode := range rl.BothModes {
				evals := s.evals(name, mode, func(r *RunSum) *run.Modes {
					if phase == "base" {
						return &r.Base
					}
					return r.Final
				})
				if len(evals) > 0 {
					rows = append(rows, append([]string{name, phase, string(mode), fmt.Sprint(len(evals))}, meanStdCells(evals)...))
				}
			}
		}
	}
	return run.MarkdownTable(header, 3, rows)
}

// evals are the evaluations in mode that of picks from arm's runs (nil:
// none), in seed order.
func (s *Summary) evals(arm string, mode rl.EvalMode, of func(*RunSum) *run.Modes) []*run.Measures {
	var out []*run.Measures
	for i := range s.Arms[arm].Runs {
		if ev := of(&s.Arms[arm].Runs[i]); ev != nil {
			if m := ev.Get(mode); m != nil {
				out = append(out, m)
			}
		}
	}
	return out
}

// meanStdCells are "mean ± std" over evals of each Reported measure.
func meanStdCells(evals []*run.Measures) []string { return meanStdOf(run.Reported, evals) }

// meanStdOf are "mean ± std" over evals of each of measures.
func meanStdOf(measures []run.Measure, evals []*run.Measures) []string {
	var cells []string
	for _, m := range measures {
		xs := make([]float64, len(evals))
		for i, e := range evals {
			xs[i] = m.Get(e)
		}
		mean, std, _ := run.MeanStd(xs)
		cells = append(cells, f3(run.Num(mean))+" ± "+f3(run.Num(std)))
	}
	return cells
}

// BaselineTable is the Markdown table of the scripted baselines on the
// in-training evaluation's instances.
func (s *Summary) BaselineTable() string { return baselineTable(s.Baselines) }

// TestBaselineTable is the same on the final test instances.
func (s *Summary) TestBaselineTable() string { return baselineTable(s.TestBaselines) }

func baselineTable(bs []run.Baseline) string {
	header := run.ReportedHeader("policy")
	var rows [][]string
	for _, bl := range bs {
		row := []string{bl.Name}
		for _, m := range run.Reported {
			row = append(row, f3(run.Num(m.Get(bl.Measures))))
		}
		rows = append(rows, row)
	}
	return run.MarkdownTable(header, 1, rows)
}

package act

import (
	"math"
	"os"
	"path/filepath"

	"arew/rl/run"
	"arew/rl/run/chart"
)

// The plots of a study (drawn with the run layer's plot kit):
// act-stage.svg, the ACT stage's sampled choice accuracy against the update, a panel per environment (or arm), each seed a thin line and
// the mean bold, chance dashed; table.svg, a panel per column, the rows'
// means as bars with ± std whiskers and the paper's numbers as crosses.

func (s *Summary) writePlots(dir string) ([]string, error) {
	if len(s.Curves) == 0 && len(s.Table) == 0 {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var out []string
	if len(s.Curves) > 0 {
		if err := s.stagePlot(filepath.Join(dir, "act-stage.svg")); err != nil {
			return nil, err
		}
		out = append(out, "plots/act-stage.svg")
	}
	if len(s.Table) > 0 {
		if err := s.tablePlot(filepath.Join(dir, "table.svg")); err != nil {
			return nil, err
		}
		out = append(out, "plots/table.svg")
	}
	return out, nil
}

func (s *Summary) stagePlot(path string) error {
	var panels []*chart.Panel
	var legend []chart.Entry
	for gi, g := range s.order {
		p := run.NewPlot("ACT stage: "+g, "GRPO update", "sampled choice accuracy")
		var curves []run.Curve
		longest := 0
		for _, cv := range s.Curves {
			if cv.Group == g {
				curves, longest = append(curves, run.Steps(cv.Acc)), max(longest, len(cv.Acc))
			}
		}
		run.AddSeeds(p, curves, gi)
		if mean := run.AddMean(p, curves, gi); mean != nil {
			legend = append(legend, chart.Entry{Label: g + " (mean)", Mark: mean})
		}
		p.Add(&chart.Line{Pts: []chart.XY{{X: 0, Y: 0.5}, {X: float64(max(1, longest-1)), Y: 0.5}},
			Colour: run.Colour(0, 0xff), Width: 1.3, Dash: []float64{5, 4}})
		panels = append(panels, p)
	}
	return run.SaveSVG(path, float64(len(panels))*340+150, 300, [][]*chart.Panel{panels}, legend)
}

// finite is x, or 0 where it is not finite (a bar of no value).
func finite(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return x
}

func (s *Summary) tablePlot(path string) error {
	var panels []*chart.Panel
	var legend []chart.Entry
	var names []string
	for _, t := range s.Table {
		n := t.Row
		if t.Arm != "" {
			n += " (" + t.Arm + ")"
		}
		names = append(names, n)
	}
	for ci, col := range s.Columns {
		p := &chart.Panel{Title: col, YLabel: "%", X: chart.Empty(), Y: chart.Range{Min: 0, Max: 100}, Nominal: names}
		bars := &chart.Bars{Colour: run.Colour(1, 0xff), Width: 18}
		paper := &chart.Dots{Colour: run.Colour(4, 0xff), Radius: 5.5, Shape: chart.Cross}
		for i, t := range s.Table {
			c := t.Cells[ci]
			bars.Values = append(bars.Values, finite(float64(c.Mean)))
			bars.Errs = append(bars.Errs, finite(float64(c.Std)))
			if c.Paper != nil {
				paper.Pts = append(paper.Pts, chart.XY{X: float64(i), Y: *c.Paper})
			}
		}
		p.Add(bars)
		if ci == 0 {
			legend = append(legend, chart.Entry{Label: "ours (mean ± std)", Mark: bars})
		}
		if len(paper.Pts) > 0 {
			p.Add(paper)
			if ci == 0 {
				legend = append(legend, chart.Entry{Label: "paper (Qwen3-8B)", Mark: paper})
			}
		}
		panels = append(panels, p)
	}
	return run.SaveSVG(path, float64(len(panels))*300+190, 380, [][]*chart.Panel{panels}, legend)
}

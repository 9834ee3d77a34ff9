package act

import (
	"math"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"arew/rl/run"
)

// The plots of a study (drawn with the run layer's plot kit):
// act-stage.png, the ACT stage's sampled choice accuracy against the update, a panel per environment (or arm), each seed a thin line and
// the mean bold, chance dashed; table.png, a panel per column, the rows'
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
		if err := s.stagePlot(filepath.Join(dir, "act-stage.png")); err != nil {
			return nil, err
		}
		out = append(out, "plots/act-stage.png")
	}
	if len(s.Table) > 0 {
		if err := s.tablePlot(filepath.Join(dir, "table.png")); err != nil {
			return nil, err
		}
		out = append(out, "plots/table.png")
	}
	return out, nil
}

func (s *Summary) stagePlot(path string) error {
	var panels []*plot.Plot
	legend := plot.NewLegend()
	for gi, g := range s.order {
		p := run.NewPlot("ACT stage: "+g, "GRPO update", "sampled choice accuracy")
		var curves []run.Curve
		longest := 0
		for _, cv := range s.Curves {
			if cv.Group == g {
				curves, longest = append(curves, run.Steps(cv.Acc)), max(longest, len(cv.Acc))
			}
		}
		if err := run.AddSeeds(p, curves, gi); err != nil {
			return err
		}
		mean, err := run.AddMean(p, curves, gi)
		if err != nil {
			return err
		}
		legend.Add(g+" (mean)", mean)
		chance, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0.5}, {X: float64(max(1, longest-1)), Y: 0.5}})
		if err != nil {
			return err
		}
		chance.Dashes, chance.Color = []vg.Length{vg.Points(4), vg.Points(3)}, run.Colour(0, 0xff)
		p.Add(chance)
		panels = append(panels, p)
	}
	return run.SavePNG(path, vg.Length(len(panels))*9*vg.Centimeter+4*vg.Centimeter, 8*vg.Centimeter, [][]*plot.Plot{panels}, legend)
}

// finite is x, or 0 where it is not finite (a bar of no value).
func finite(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return x
}

func (s *Summary) tablePlot(path string) error {
	var panels []*plot.Plot
	legend := plot.NewLegend()
	var names []string
	for _, t := range s.Table {
		n := t.Row
		if t.Arm != "" {
			n += " (" + t.Arm + ")"
		}
		names = append(names, n)
	}
	for ci, col := range s.Columns {
		p := plot.New()
		p.Title.Text = col
		p.Y.Label.Text = "%"
		p.Y.Min, p.Y.Max = 0, 100
		p.Add(plotter.NewGrid())
		vals, errs := make(plotter.Values, len(s.Table)), make(plotter.YErrors, len(s.Table))
		var tops, paper plotter.XYs // the bars' tops at x = 0, 1, …, the paper's numbers
		for i, t := range s.Table {
			c := t.Cells[ci]
			vals[i] = finite(float64(c.Mean))
			tops = append(tops, plotter.XY{X: float64(i), Y: vals[i]})
			e := finite(float64(c.Std))
			errs[i].Low, errs[i].High = e, e
			if c.Paper != nil {
				paper = append(paper, plotter.XY{X: float64(i), Y: *c.Paper})
			}
		}
		bars, err := plotter.NewBarChart(vals, vg.Points(14))
		if err != nil {
			return err
		}
		bars.Color, bars.LineStyle.Width = run.Colour(1, 0xff), 0
		p.Add(bars)
		whisk, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{tops, errs})
		if err != nil {
			return err
		}
		p.Add(whisk)
		if ci == 0 {
			legend.Add("ours (mean ± std)", bars)
		}
		if len(paper) > 0 {
			sc, err := plotter.NewScatter(paper)
			if err != nil {
				return err
			}
			sc.Shape, sc.Color, sc.Radius = draw.CrossGlyph{}, run.Colour(4, 0xff), vg.Points(4)
			p.Add(sc)
			if ci == 0 {
				legend.Add("paper (Qwen3-8B)", sc)
			}
		}
		p.NominalX(names...)
		p.X.Tick.Label.Rotation = math.Pi / 4
		p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YTop
		panels = append(panels, p)
	}
	return run.SavePNG(path, vg.Length(len(panels))*8*vg.Centimeter+5*vg.Centimeter, 10*vg.Centimeter, [][]*plot.Plot{panels}, legend)
}

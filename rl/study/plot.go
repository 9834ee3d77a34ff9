package study

import (
	"arew/rl/run"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// The plots (PNG) of a study: one file per measure, and per own count of
// the task (extra.go), with the arms overlaid
// (<key>.png, the sampled evaluations, greedy ones in a study that
// evaluates only greedily; a thin line is one seed, the bold line with dots
// the mean over the seeds that reached that update), eval.png and
// training.png (mean ± std bands, bands.go), and phase.png (phase.go).
// writePlots writes the PNGs into dir and returns their paths relative to
// dir's parent (for report.md). A study with no evaluation yet has none.
func writePlots(s *Summary, dir string) ([]string, error) {
	evaluated := false
	for _, a := range s.Arms {
		for _, r := range a.Runs {
			evaluated = evaluated || len(r.Curve) > 0
		}
	}
	if !evaluated {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("plots: %w", err)
	}
	var out []string
	for _, m := range append(slices.Clone(run.Reported), s.extraMeasures()...) {
		p, legend, err := measurePlot(s, m)
		if err != nil {
			return nil, err
		}
		name := m.Key + ".png"
		if err := run.SavePNG(filepath.Join(dir, name), 9*vg.Inch, 4.5*vg.Inch, [][]*plot.Plot{{p}}, legend); err != nil {
			return nil, err
		}
		out = append(out, filepath.Join(PlotsDir, name))
	}
	phase, legend, err := phasePlot(s)
	if err != nil {
		return nil, err
	}
	if err := run.SavePNG(filepath.Join(dir, PhasePlot), 10*vg.Inch, 6*vg.Inch, [][]*plot.Plot{{phase}}, legend); err != nil {
		return nil, err
	}
	out = append(out, filepath.Join(PlotsDir, PhasePlot))
	panels, legend, err := evalBands(s)
	if err != nil {
		return nil, err
	}
	w, h := vg.Length(len(panels[0]))*5*vg.Inch+2.2*vg.Inch, vg.Length(len(panels))*3*vg.Inch
	if err := run.SavePNG(filepath.Join(dir, EvalPlot), w, h, panels, legend); err != nil {
		return nil, err
	}
	out = append(out, filepath.Join(PlotsDir, EvalPlot))
	panels, legend, err = trainingBands(s, filepath.Dir(dir))
	if err != nil || panels == nil {
		return out, err
	}
	w, h = vg.Length(len(panels[0]))*5*vg.Inch+2.2*vg.Inch, vg.Length(len(panels))*3*vg.Inch
	if err := run.SavePNG(filepath.Join(dir, TrainingPlot), w, h, panels, legend); err != nil {
		return nil, err
	}
	return append(out, filepath.Join(PlotsDir, TrainingPlot)), nil
}

// The band plots' files in plots/ (bands.go).
const (
	EvalPlot     = "eval.png"
	TrainingPlot = "training.png"
)

// PhasePlot is the phase plane's file in plots/ (phase.go).
const PhasePlot = "phase.png"

// plotMode is the evaluation mode the plots show.
func plotMode(s *Summary) string {
	if s.Modes == "greedy" {
		return "greedy"
	}
	return "sampled"
}

// series is the value of m along one run's curve in mode.
func series(r RunSum, m run.Measure, mode string) plotter.XYs {
	var xy plotter.XYs
	for _, p := range r.Curve {
		if e := p.Get(mode); e != nil {
			if v := m.Get(e); !math.IsNaN(v) {
				xy = append(xy, plotter.XY{X: float64(p.Update), Y: v})
			}
		}
	}
	return xy
}

// curves are the series of m along runs' curves in mode.
func curves(runs []RunSum, m run.Measure, mode string) []run.Curve {
	out := make([]run.Curve, len(runs))
	for i, r := range runs {
		out[i] = series(r, m, mode)
	}
	return out
}

// measurePlot overlays every arm's runs for one measure.
func measurePlot(s *Summary, m run.Measure) (*plot.Plot, plot.Legend, error) {
	p := run.NewPlot(fmt.Sprintf("%s: %s (%s, %d %s instances)", s.Name, m.Label, plotMode(s), s.Episodes, s.Split), "RL update", m.Label)
	legend := plot.NewLegend()
	// Every seed first, so that no arm's thin lines hide another's mean.
	for i, name := range s.ArmOrder {
		if err := run.AddSeeds(p, curves(s.Arms[name].Runs, m, plotMode(s)), i); err != nil {
			return nil, legend, err
		}
	}
	for i, name := range s.ArmOrder {
		runs := s.Arms[name].Runs
		th, err := run.AddMean(p, curves(runs, m, plotMode(s)), i)
		if err != nil {
			return nil, legend, err
		}
		if th != nil {
			legend.Add(fmt.Sprintf("%s (mean of %d)", name, len(runs)), th)
		}
	}
	if err := addBaselines(p, s, m, &legend); err != nil {
		return nil, legend, err
	}
	fitY(p)
	return p, legend, nil
}

// addBaselines draws the scripted baselines' values of m as dashed
// horizontal lines, adding them to legend unless it is nil.
func addBaselines(p *plot.Plot, s *Summary, m run.Measure, legend *plot.Legend) error {
	for i, bl := range s.Baselines {
		v := m.Get(bl.Measures)
		if math.IsNaN(v) {
			continue
		}
		l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: v}, {X: float64(s.Updates), Y: v}})
		if err != nil {
			return fmt.Errorf("plots: %w", err)
		}
		l.Color, l.Width = color.Gray{Y: 0x30}, vg.Points(1)
		l.Dashes = baselineDashes[i%len(baselineDashes)]
		p.Add(l)
		if legend != nil {
			legend.Add(bl.Name, l)
		}
	}
	return nil
}

// baselineDashes tell the scripted baselines' lines apart.
var baselineDashes = [][]vg.Length{
	{vg.Points(2), vg.Points(2)},
	{vg.Points(6), vg.Points(3)},
	{vg.Points(6), vg.Points(2), vg.Points(1), vg.Points(2)},
}

// fitY widens the [0, 1] range to any value outside it.
func fitY(p *plot.Plot) {
	p.Y.Min, p.Y.Max = min(p.Y.Min, 0), max(p.Y.Max, 1)
}

package study

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"

	"arew/rl"
	"arew/rl/run"
	"arew/rl/run/chart"
)

// The plots (SVG) of a study: one file per measure, and per own count of
// the task (extra.go), with the arms overlaid
// (<key>.svg, the sampled evaluations, greedy ones in a study that
// evaluates only greedily; a thin line is one seed, the bold line with dots
// the mean over the seeds that reached that update), eval.svg and
// training.svg (mean ± std bands, bands.go), and phase.svg (phase.go).
// writePlots writes the SVGs into dir and returns their paths relative to
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
		p, legend := measurePlot(s, m)
		name := m.Key + ".svg"
		if err := run.SaveSVG(filepath.Join(dir, name), 900, 450, [][]*chart.Panel{{p}}, legend); err != nil {
			return nil, err
		}
		out = append(out, filepath.Join(PlotsDir, name))
	}
	phase, legend := phasePlot(s)
	if err := run.SaveSVG(filepath.Join(dir, PhasePlot), 1000, 600, [][]*chart.Panel{{phase}}, legend); err != nil {
		return nil, err
	}
	out = append(out, filepath.Join(PlotsDir, PhasePlot))
	panels, legend := evalBands(s)
	w, h := float64(len(panels[0]))*500+220, float64(len(panels))*300
	if err := run.SaveSVG(filepath.Join(dir, EvalPlot), w, h, panels, legend); err != nil {
		return nil, err
	}
	out = append(out, filepath.Join(PlotsDir, EvalPlot))
	panels, legend, err := trainingBands(s, filepath.Dir(dir))
	if err != nil || panels == nil {
		return out, err
	}
	w, h = float64(len(panels[0]))*500+220, float64(len(panels))*300
	if err := run.SaveSVG(filepath.Join(dir, TrainingPlot), w, h, panels, legend); err != nil {
		return nil, err
	}
	return append(out, filepath.Join(PlotsDir, TrainingPlot)), nil
}

// The band plots' files in plots/ (bands.go).
const (
	EvalPlot     = "eval.svg"
	TrainingPlot = "training.svg"
)

// PhasePlot is the phase plane's file in plots/ (phase.go).
const PhasePlot = "phase.svg"

// plotMode is the evaluation mode the plots show: the study's last
// (sampled, unless it evaluates greedily only).
func plotMode(s *Summary) rl.EvalMode {
	if modes, err := rl.EvalModes(s.Modes); err == nil {
		return modes[len(modes)-1]
	}
	return rl.ModeSampled
}

// series is the value of m along one run's curve in mode.
func series(r RunSum, m run.Measure, mode rl.EvalMode) run.Curve {
	var xy run.Curve
	for _, p := range r.Curve {
		if e := p.Get(mode); e != nil {
			if v := m.Get(e); !math.IsNaN(v) {
				xy = append(xy, chart.XY{X: float64(p.Update), Y: v})
			}
		}
	}
	return xy
}

// curves are the series of m along runs' curves in mode.
func curves(runs []RunSum, m run.Measure, mode rl.EvalMode) []run.Curve {
	out := make([]run.Curve, len(runs))
	for i, r := range runs {
		out[i] = series(r, m, mode)
	}
	return out
}

// measurePlot overlays every arm's runs for one measure.
func measurePlot(s *Summary, m run.Measure) (*chart.Panel, []chart.Entry) {
	p := run.NewPlot(fmt.Sprintf("%s: %s (%s, %d %s instances)", s.Name, m.Label, plotMode(s), s.Episodes, s.Split), "RL update", m.Label)
	var legend []chart.Entry
	// Every seed first, so that no arm's thin lines hide another's mean.
	for i, name := range s.ArmOrder {
		run.AddSeeds(p, curves(s.Arms[name].Runs, m, plotMode(s)), i)
	}
	for i, name := range s.ArmOrder {
		runs := s.Arms[name].Runs
		if th := run.AddMean(p, curves(runs, m, plotMode(s)), i); th != nil {
			legend = append(legend, chart.Entry{Label: fmt.Sprintf("%s (mean of %d)", name, len(runs)), Mark: th})
		}
	}
	return p, append(legend, addBaselines(p, s, m)...)
}

// addBaselines draws the scripted baselines' values of m as dashed
// horizontal lines and returns their legend entries.
func addBaselines(p *chart.Panel, s *Summary, m run.Measure) []chart.Entry {
	var legend []chart.Entry
	for i, bl := range s.Baselines {
		v := m.Get(bl.Measures)
		if math.IsNaN(v) {
			continue
		}
		l := &chart.Line{Pts: []chart.XY{{X: 0, Y: v}, {X: float64(s.Updates), Y: v}}, Colour: baselineGrey,
			Width: 1.3, Dash: baselineDashes[i%len(baselineDashes)]}
		p.Add(l)
		legend = append(legend, chart.Entry{Label: bl.Name, Mark: l})
	}
	return legend
}

// baselineGrey is the scripted baselines' colour, and baselineDashes
// tell their lines apart.
var (
	baselineGrey   = color.NRGBA{0x30, 0x30, 0x30, 0xff}
	baselineDashes = [][]float64{{3, 3}, {8, 4}, {8, 3, 1.5, 3}}
)

package study

import (
	"arew/rl/run"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The phase plane: every run's path through the exact (I_AS, C_BT) plane,
// one point per evaluation, with the self-locking region
//
//	R = { I_AS ≤ δ, C_BT ≤ ε }
//
// drawn as a grey box. δ and ε are the scripted random policy's I_AS and
// C_BT on the same instances (the study's baselines): inside R an agent's
// queries inform the exact posterior no more than random ones do, and its
// own belief gains no more than a random policy's. docs/arew.md §3 reads
// the picture beside Theorem 3.4's drift bound.

// lockRegion is (δ, ε) from the study's baselines; ok is false when the
// study has no random baseline with both measures.
func lockRegion(s *Summary) (delta, eps float64, ok bool) {
	for _, b := range s.Baselines {
		if b.Name == "scripted random" && b.Measures != nil {
			delta, eps = float64(b.Measures.IAS), float64(b.Measures.CBT)
			return delta, eps, !math.IsNaN(delta) && !math.IsNaN(eps)
		}
	}
	return 0, 0, false
}

var (
	measureIAS = run.Measure{Key: "i_as", Label: "I_AS", Get: func(m *run.Measures) float64 { return float64(m.IAS) }}
	measureCBT = run.Measure{Key: "c_bt", Label: "C_BT", Get: func(m *run.Measures) float64 { return float64(m.CBT) }}
)

// phasePath is a run's evaluations as (I_AS, C_BT) points in mode, in
// update order, skipping evaluations where either is undefined.
func phasePath(r RunSum, mode string) plotter.XYs {
	var xy plotter.XYs
	for _, p := range r.Curve {
		if e := p.Get(mode); e != nil {
			x, y := measureIAS.Get(e), measureCBT.Get(e)
			if !math.IsNaN(x) && !math.IsNaN(y) {
				xy = append(xy, plotter.XY{X: x, Y: y})
			}
		}
	}
	return xy
}

// meanPhasePath is the mean over runs of (I_AS, C_BT) at every update
// that some run evaluated.
func meanPhasePath(runs []RunSum, mode string) plotter.XYs {
	xu, ias, _ := run.MeanBand(curves(runs, measureIAS, mode))
	yu, cbt, _ := run.MeanBand(curves(runs, measureCBT, mode))
	n := min(len(xu), len(yu))
	out := make(plotter.XYs, 0, n)
	for i := range n {
		if xu[i] == yu[i] { // the same update
			out = append(out, plotter.XY{X: ias[i], Y: cbt[i]})
		}
	}
	return out
}

// phasePlot draws the phase plane of a study.
func phasePlot(s *Summary) (*plot.Plot, plot.Legend, error) {
	mode := plotMode(s)
	p := plot.New()
	p.X.Label.Text = "I_AS (exact: the agent's queries, Bayes beliefs)"
	p.Y.Label.Text = "C_BT (the agent's own belief gains)"
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	p.Add(plotter.NewGrid())
	legend := plot.NewLegend()

	title := fmt.Sprintf("%s: (I_AS, C_BT) paths, %s, %d %s instances", s.Name, mode, s.Episodes, s.Split)
	if delta, eps, ok := lockRegion(s); ok {
		box, err := plotter.NewPolygon(plotter.XYs{{X: 0, Y: 0}, {X: delta, Y: 0}, {X: delta, Y: eps}, {X: 0, Y: eps}})
		if err != nil {
			return nil, legend, fmt.Errorf("plots: %w", err)
		}
		box.Color = color.Gray{Y: 0xe4}
		box.LineStyle.Color, box.LineStyle.Width = color.Gray{Y: 0x60}, vg.Points(1)
		box.LineStyle.Dashes = baselineDashes[0]
		p.Add(box)
		legend.Add(fmt.Sprintf("R: I_AS ≤ δ = %.3f, C_BT ≤ ε = %.3f (scripted random's)", delta, eps), box)
	}
	p.Title.Text = title

	for i, name := range s.ArmOrder {
		for _, r := range s.Arms[name].Runs {
			xy := phasePath(r, mode)
			if len(xy) == 0 {
				continue
			}
			l, err := plotter.NewLine(xy)
			if err != nil {
				return nil, legend, fmt.Errorf("plots: %w", err)
			}
			l.Color, l.Width = run.Colour(i, 0x70), vg.Points(run.SeedWidth)
			end, err := plotter.NewScatter(xy[len(xy)-1:])
			if err != nil {
				return nil, legend, fmt.Errorf("plots: %w", err)
			}
			end.Color, end.Radius, end.Shape = run.Colour(i, 0x90), vg.Points(2.2), draw.CircleGlyph{}
			p.Add(l, end)
		}
	}
	for i, name := range s.ArmOrder {
		mean := meanPhasePath(s.Arms[name].Runs, mode)
		if len(mean) == 0 {
			continue
		}
		l, pts, err := plotter.NewLinePoints(mean)
		if err != nil {
			return nil, legend, fmt.Errorf("plots: %w", err)
		}
		l.Color, l.Width = run.Colour(i, 0xff), vg.Points(run.MeanWidth)
		pts.Color, pts.Radius, pts.Shape = run.Colour(i, 0xff), vg.Points(1.8), draw.CircleGlyph{}
		last, err := plotter.NewScatter(mean[len(mean)-1:])
		if err != nil {
			return nil, legend, fmt.Errorf("plots: %w", err)
		}
		last.Color, last.Radius, last.Shape = run.Colour(i, 0xff), vg.Points(5), draw.PyramidGlyph{}
		p.Add(l, pts, last)
		legend.Add(fmt.Sprintf("%s (mean of %d; ▲ the end)", name, len(s.Arms[name].Runs)), l)
	}
	for i, b := range s.Baselines {
		if b.Measures == nil || math.IsNaN(float64(b.Measures.IAS)) || math.IsNaN(float64(b.Measures.CBT)) {
			continue
		}
		sc, err := plotter.NewScatter(plotter.XYs{{X: float64(b.Measures.IAS), Y: float64(b.Measures.CBT)}})
		if err != nil {
			return nil, legend, fmt.Errorf("plots: %w", err)
		}
		sc.Color, sc.Radius = color.Black, vg.Points(4)
		sc.Shape = []draw.GlyphDrawer{draw.BoxGlyph{}, draw.CrossGlyph{}, draw.RingGlyph{}}[i%3]
		p.Add(sc)
		legend.Add(b.Name, sc)
	}
	p.X.Min, p.Y.Min = min(p.X.Min, 0), min(p.Y.Min, 0)
	p.X.Max, p.Y.Max = max(p.X.Max, 1), max(p.Y.Max, 1)
	return p, legend, nil
}

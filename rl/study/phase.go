package study

import (
	"fmt"
	"image/color"
	"math"

	"arew/rl"
	"arew/rl/run"
	"arew/rl/run/chart"
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
func phasePath(r RunSum, mode rl.EvalMode) run.Curve {
	var xy run.Curve
	for _, p := range r.Curve {
		if e := p.Get(mode); e != nil {
			x, y := measureIAS.Get(e), measureCBT.Get(e)
			if !math.IsNaN(x) && !math.IsNaN(y) {
				xy = append(xy, chart.XY{X: x, Y: y})
			}
		}
	}
	return xy
}

// meanPhasePath is the mean over runs of (I_AS, C_BT) at every update
// that some run evaluated.
func meanPhasePath(runs []RunSum, mode rl.EvalMode) run.Curve {
	xu, ias, _ := run.MeanBand(curves(runs, measureIAS, mode))
	yu, cbt, _ := run.MeanBand(curves(runs, measureCBT, mode))
	n := min(len(xu), len(yu))
	out := make(run.Curve, 0, n)
	for i := range n {
		if xu[i] == yu[i] { // the same update
			out = append(out, chart.XY{X: ias[i], Y: cbt[i]})
		}
	}
	return out
}

// phasePlot draws the phase plane of a study.
func phasePlot(s *Summary) (*chart.Panel, []chart.Entry) {
	mode := plotMode(s)
	p := &chart.Panel{
		Title:  fmt.Sprintf("%s: (I_AS, C_BT) paths, %s, %d %s instances", s.Name, mode, s.Episodes, s.Split),
		XLabel: "I_AS (exact: the agent's queries, Bayes beliefs)",
		YLabel: "C_BT (the agent's own belief gains)",
		X:      chart.Range{Min: 0, Max: 1}, Y: chart.Range{Min: 0, Max: 1},
	}
	var legend []chart.Entry
	if delta, eps, ok := lockRegion(s); ok {
		box := &chart.Area{Pts: []chart.XY{{X: 0, Y: 0}, {X: delta, Y: 0}, {X: delta, Y: eps}, {X: 0, Y: eps}},
			Fill: color.NRGBA{0xe4, 0xe4, 0xe4, 0xff}, Edge: color.NRGBA{0x60, 0x60, 0x60, 0xff}, Width: 1.3, Dash: baselineDashes[0]}
		p.Add(box)
		legend = append(legend, chart.Entry{Label: fmt.Sprintf("R: I_AS ≤ δ = %.3f, C_BT ≤ ε = %.3f (scripted random's)", delta, eps), Mark: box})
	}
	// Every seed's path thin, its end a dot.
	for i, name := range s.ArmOrder {
		for _, r := range s.Arms[name].Runs {
			if xy := phasePath(r, mode); len(xy) > 0 {
				p.Add(&chart.Line{Pts: xy, Colour: run.Colour(i, 0x70), Width: run.SeedWidth},
					&chart.Dots{Pts: xy[len(xy)-1:], Colour: run.Colour(i, 0x90), Radius: 3})
			}
		}
	}
	// The mean path bold with dots, its end a triangle.
	for i, name := range s.ArmOrder {
		mean := meanPhasePath(s.Arms[name].Runs, mode)
		if len(mean) == 0 {
			continue
		}
		l := &chart.Line{Pts: mean, Colour: run.Colour(i, 0xff), Width: run.MeanWidth}
		p.Add(l, &chart.Dots{Pts: mean, Colour: run.Colour(i, 0xff), Radius: 2.5},
			&chart.Dots{Pts: mean[len(mean)-1:], Colour: run.Colour(i, 0xff), Radius: 7, Shape: chart.Triangle})
		legend = append(legend, chart.Entry{Label: fmt.Sprintf("%s (mean of %d; ▲ the end)", name, len(s.Arms[name].Runs)), Mark: l})
	}
	// The scripted baselines as black markers.
	for i, b := range s.Baselines {
		if b.Measures == nil || math.IsNaN(float64(b.Measures.IAS)) || math.IsNaN(float64(b.Measures.CBT)) {
			continue
		}
		sc := &chart.Dots{Pts: []chart.XY{{X: float64(b.Measures.IAS), Y: float64(b.Measures.CBT)}},
			Colour: color.NRGBA{0, 0, 0, 0xff}, Radius: 5.5, Shape: []chart.Shape{chart.Square, chart.Cross, chart.Ring}[i%3]}
		p.Add(sc)
		legend = append(legend, chart.Entry{Label: b.Name, Mark: sc})
	}
	return p, legend
}

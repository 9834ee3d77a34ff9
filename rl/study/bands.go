package study

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"strconv"

	"arew/rl"
	"arew/rl/run"
	"arew/rl/run/chart"
)

// The band plots: one panel per measure, each arm's mean over its seeds as
// a line with a ±1 standard deviation band around it (no band for one
// seed). eval.svg has the in-training evaluations, a row per measure and
// a column per mode (greedy, sampled); training.svg has the per-update
// training curves read from each run's metrics.jsonl, smoothed over
// trainWindow updates.

// trainWindow is the moving-average window of the training curves.
const trainWindow = 10

// evalBands is eval.svg's panels: a row per Reported measure, a column per
// evaluated mode, every arm's mean ± std over seeds, and the scripted
// baselines dashed.
func evalBands(s *Summary) ([][]*chart.Panel, []chart.Entry) {
	var legend []chart.Entry
	modes, _ := rl.EvalModes(s.Modes) // none for a summary with no valid modes
	panels := make([][]*chart.Panel, len(run.Reported))
	for r, m := range run.Reported {
		for c, mode := range modes {
			p := run.NewPlot(fmt.Sprintf("%s, %s (%d %s instances)", m.Label, mode, s.Episodes, s.Split), "RL update", m.Label)
			for i, name := range s.ArmOrder {
				cs := curves(s.Arms[name].Runs, m, mode)
				if th := run.AddBand(p, cs, i); r == 0 && c == 0 && th != nil {
					legend = append(legend, chart.Entry{Label: fmt.Sprintf("%s (%s)", name, seedCount(len(cs))), Mark: th})
				}
			}
			if bl := addBaselines(p, s, m); r == 0 && c == 0 {
				legend = append(legend, bl...)
			}
			panels[r] = append(panels[r], p)
		}
	}
	return panels, legend
}

// trainingCurves are the per-update training measures of training.svg.
var trainingCurves = []struct {
	label string
	get   func(rl.Metrics) float64
}{
	{"reward (train episodes)", func(m rl.Metrics) float64 { return m.Reward }},
	{"approx. KL (ppo_kl)", func(m rl.Metrics) float64 { return m.ApproxKL }},
	{"entropy", func(m rl.Metrics) float64 { return m.Entropy }},
	{"clip fraction", func(m rl.Metrics) float64 { return m.ClipFrac }},
	{"margin size (mean |λu|)", func(m rl.Metrics) float64 { return m.AREWMeanAbs }},
}

// readMetrics reads a run's metrics.jsonl (nil if it has none).
func readMetrics(path string) ([]rl.Metrics, error) {
	ms, _, err := run.ReadRecords[rl.Metrics](path, nil)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return ms, err
}

// smoothed is get over ms as a curve against the update (1-based), each
// point the mean of the last trainWindow finite values.
func smoothed(ms []rl.Metrics, get func(rl.Metrics) float64) run.Curve {
	var out run.Curve
	var window []float64
	for k, m := range ms {
		if v := get(m); !math.IsNaN(v) && !math.IsInf(v, 0) {
			window = append(window, v)
		}
		if len(window) > trainWindow {
			window = window[1:]
		}
		if len(window) > 0 {
			mean, _, _ := run.MeanStd(window)
			out = append(out, chart.XY{X: float64(k + 1), Y: mean})
		}
	}
	return out
}

// trainingBands is training.svg's panels (two columns) from the runs'
// metrics.jsonl under dir; nil when no run has metrics.
func trainingBands(s *Summary, dir string) ([][]*chart.Panel, []chart.Entry, error) {
	var legend []chart.Entry
	metrics := map[string][][]rl.Metrics{}
	any := false
	for _, name := range s.ArmOrder {
		for _, r := range s.Arms[name].Runs {
			ms, err := readMetrics(filepath.Join(dir, name, runName(r.Seed), run.MetricsFile))
			if err != nil {
				return nil, nil, err
			}
			metrics[name] = append(metrics[name], ms)
			any = any || len(ms) > 0
		}
	}
	if !any {
		return nil, nil, nil
	}
	cols := 2
	rows := (len(trainingCurves) + cols - 1) / cols
	panels := make([][]*chart.Panel, rows)
	for k, tc := range trainingCurves {
		p := run.NewPlot(fmt.Sprintf("%s (mean of the last %d updates)", tc.label, trainWindow), "RL update", tc.label)
		p.Y = chart.Empty() // the data alone
		for i, name := range s.ArmOrder {
			var cs []run.Curve
			for _, ms := range metrics[name] {
				cs = append(cs, smoothed(ms, tc.get))
			}
			if th := run.AddBand(p, cs, i); k == 0 && th != nil {
				legend = append(legend, chart.Entry{Label: fmt.Sprintf("%s (%s)", name, seedCount(len(cs))), Mark: th})
			}
		}
		panels[k/cols] = append(panels[k/cols], p)
	}
	for r := range panels {
		for len(panels[r]) < cols {
			panels[r] = append(panels[r], nil) // an empty cell
		}
	}
	return panels, legend, nil
}

// seedCount is "1 seed" or "n seeds".
func seedCount(n int) string {
	if n == 1 {
		return "1 seed"
	}
	return strconv.Itoa(n) + " seeds"
}

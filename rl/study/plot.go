package study

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"arew/engine"
)

// The plots (PNG) of a study: one file per measure with the arms overlaid
// (<key>.png, the sampled evaluations, greedy ones in a study that
// evaluates only greedily; a thin line is one seed, the bold line with dots
// the mean over the seeds that reached that update), eval.png and
// training.png (mean ± std bands, bands.go), and phase.png (phase.go).
const (
	plotDPI   = 110
	seedWidth = 0.8 // points
	meanWidth = 2.6
)

// palette is the colour of the i-th series (arms, or measures in
// arms.png): distinct hues that stay apart in print.
var palette = []color.RGBA{
	{0x55, 0x55, 0x55, 0xff}, // grey: the first arm, vanilla in the standard order
	{0x1f, 0x77, 0xb4, 0xff}, // blue
	{0xff, 0x7f, 0x0e, 0xff}, // orange
	{0x2c, 0xa0, 0x2c, 0xff}, // green
	{0xd6, 0x27, 0x28, 0xff}, // red
	{0x94, 0x67, 0xbd, 0xff}, // purple
	{0x8c, 0x56, 0x4b, 0xff}, // brown
	{0x17, 0xbe, 0xcf, 0xff}, // cyan
}

func colour(i int, alpha uint8) color.RGBA {
	c := palette[i%len(palette)]
	c.A = alpha
	// Premultiplied: image/color expects channels ≤ alpha.
	c.R = uint8(uint16(c.R) * uint16(alpha) / 255)
	c.G = uint8(uint16(c.G) * uint16(alpha) / 255)
	c.B = uint8(uint16(c.B) * uint16(alpha) / 255)
	return c
}

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
	for _, m := range Reported {
		p, legend, err := measurePlot(s, m)
		if err != nil {
			return nil, err
		}
		name := m.Key + ".png"
		if err := savePNG(filepath.Join(dir, name), 9*vg.Inch, 4.5*vg.Inch, [][]*plot.Plot{{p}}, legend); err != nil {
			return nil, err
		}
		out = append(out, filepath.Join(PlotsDir, name))
	}
	phase, legend, err := phasePlot(s)
	if err != nil {
		return nil, err
	}
	if err := savePNG(filepath.Join(dir, PhasePlot), 10*vg.Inch, 6*vg.Inch, [][]*plot.Plot{{phase}}, legend); err != nil {
		return nil, err
	}
	out = append(out, filepath.Join(PlotsDir, PhasePlot))
	panels, legend, err := evalBands(s)
	if err != nil {
		return nil, err
	}
	w, h := vg.Length(len(panels[0]))*5*vg.Inch+2.2*vg.Inch, vg.Length(len(panels))*3*vg.Inch
	if err := savePNG(filepath.Join(dir, EvalPlot), w, h, panels, legend); err != nil {
		return nil, err
	}
	out = append(out, filepath.Join(PlotsDir, EvalPlot))
	panels, legend, err = trainingBands(s, filepath.Dir(dir))
	if err != nil || panels == nil {
		return out, err
	}
	w, h = vg.Length(len(panels[0]))*5*vg.Inch+2.2*vg.Inch, vg.Length(len(panels))*3*vg.Inch
	if err := savePNG(filepath.Join(dir, TrainingPlot), w, h, panels, legend); err != nil {
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
func series(r RunSum, m Measure, mode string) plotter.XYs {
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

// meanSeries is the mean over runs at every update some run evaluated.
func meanSeries(runs []RunSum, m Measure, mode string) plotter.XYs {
	curves := make([]curve, len(runs))
	for i, r := range runs {
		curves[i] = curve(series(r, m, mode))
	}
	xs, mean, _ := meanBand(curves)
	xy := make(plotter.XYs, len(xs))
	for k := range xs {
		xy[k] = plotter.XY{X: xs[k], Y: mean[k]}
	}
	return xy
}

// addSeeds draws each run's series thin in colour i.
func addSeeds(p *plot.Plot, runs []RunSum, m Measure, i int, mode string) error {
	for _, r := range runs {
		xy := series(r, m, mode)
		if len(xy) == 0 {
			continue
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return fmt.Errorf("plots: %w", err)
		}
		l.Color, l.Width = colour(i, 0x70), vg.Points(seedWidth)
		p.Add(l)
	}
	return nil
}

// addMean draws the runs' mean bold with dots in colour i; it returns the
// line for the legend (nil if there is nothing to draw).
func addMean(p *plot.Plot, runs []RunSum, m Measure, i int, mode string) (plot.Thumbnailer, error) {
	mean := meanSeries(runs, m, mode)
	if len(mean) == 0 {
		return nil, nil
	}
	l, pts, err := plotter.NewLinePoints(mean)
	if err != nil {
		return nil, fmt.Errorf("plots: %w", err)
	}
	l.Color, l.Width = colour(i, 0xff), vg.Points(meanWidth)
	pts.Color, pts.Radius, pts.Shape = colour(i, 0xff), vg.Points(2.6), draw.CircleGlyph{}
	p.Add(l, pts)
	return l, nil
}

func newPlot(title, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "RL update"
	p.Y.Label.Text = ylabel
	p.Y.Min, p.Y.Max = 0, 1
	p.Add(plotter.NewGrid())
	return p
}

// measurePlot overlays every arm's runs for one measure.
func measurePlot(s *Summary, m Measure) (*plot.Plot, plot.Legend, error) {
	p := newPlot(fmt.Sprintf("%s: %s (%s, %d %s instances)", s.Name, m.Label, plotMode(s), s.Episodes, s.Split), m.Label)
	legend := plot.NewLegend()
	// Every seed first, so that no arm's thin lines hide another's mean.
	for i, name := range s.ArmOrder {
		if err := addSeeds(p, s.Arms[name].Runs, m, i, plotMode(s)); err != nil {
			return nil, legend, err
		}
	}
	for i, name := range s.ArmOrder {
		runs := s.Arms[name].Runs
		th, err := addMean(p, runs, m, i, plotMode(s))
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
func addBaselines(p *plot.Plot, s *Summary, m Measure, legend *plot.Legend) error {
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

// savePNG draws the panels in a grid with the legend in a strip on the
// right, and writes the PNG atomically.
func savePNG(path string, w, h vg.Length, panels [][]*plot.Plot, legend plot.Legend) error {
	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(plotDPI))
	dc := draw.New(img)
	legend.Top, legend.Left = true, true
	legend.Padding = vg.Millimeter
	legend.ThumbnailWidth = vg.Millimeter * 8
	strip := legend.Rectangle(dc).Size().X + vg.Millimeter*6
	area := draw.Crop(dc, 0, -strip, 0, 0)
	tiles := draw.Tiles{Rows: len(panels), Cols: len(panels[0]), PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	canvases := plot.Align(panels, tiles, area)
	for r := range panels {
		for c := range panels[r] {
			panels[r][c].Draw(canvases[r][c])
		}
	}
	legend.YOffs = -vg.Millimeter * 12
	legend.Draw(draw.Crop(dc, w-strip+vg.Millimeter*3, 0, 0, 0))
	return engine.WriteFileAtomic(path, 0o644, func(out io.Writer) error {
		_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(out)
		return err
	})
}

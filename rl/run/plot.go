package run

import (
	"image/color"
	"io"
	"math"
	"slices"

	"arew/engine"
	"arew/rl/run/chart"
)

// The plot kit every figure of the project is drawn with (package chart,
// SVG): one palette, one layout (SaveSVG: panels in a grid, the legend in
// a strip on the right), and the series a sweep draws: each seed thin
// (AddSeeds), the mean over the seeds bold with dots (AddMean), or the
// mean with a ±1 standard deviation band (AddBand).
const (
	// SeedWidth and MeanWidth are the widths (pixels) of one seed's line
	// and of the mean's.
	SeedWidth = 1.1
	MeanWidth = 3.5
)

// palette is the colour of the i-th series (arms, or the measures of one
// figure): distinct hues that stay apart in print.
var palette = []color.NRGBA{
	{0x55, 0x55, 0x55, 0xff}, // grey: the first arm, vanilla in the standard order
	{0x1f, 0x77, 0xb4, 0xff}, // blue
	{0xff, 0x7f, 0x0e, 0xff}, // orange
	{0x2c, 0xa0, 0x2c, 0xff}, // green
	{0xd6, 0x27, 0x28, 0xff}, // red
	{0x94, 0x67, 0xbd, 0xff}, // purple
	{0x8c, 0x56, 0x4b, 0xff}, // brown
	{0x17, 0xbe, 0xcf, 0xff}, // cyan
}

// Colour is the i-th series colour at opacity alpha.
func Colour(i int, alpha uint8) color.NRGBA {
	c := palette[i%len(palette)]
	c.A = alpha
	return c
}

// NewPlot is a panel with its title and axis labels, x from the data and
// y covering [0, 1] and the data.
func NewPlot(title, xlabel, ylabel string) *chart.Panel {
	return chart.NewPanel(title, xlabel, ylabel, 0, 1)
}

// Curve is one run's values against its updates.
type Curve = []chart.XY

// MeanBand is the mean and sample std (MeanStd) over curves at every x
// some curve has, in increasing x (std NaN where fewer than two do).
func MeanBand(curves []Curve) (xs, mean, std []float64) {
	at := map[float64][]float64{}
	for _, c := range curves {
		for _, p := range c {
			if !math.IsNaN(p.Y) {
				at[p.X] = append(at[p.X], p.Y)
			}
		}
	}
	for x := range at {
		xs = append(xs, x)
	}
	slices.Sort(xs)
	for _, x := range xs {
		m, s, _ := MeanStd(at[x])
		mean, std = append(mean, m), append(std, s)
	}
	return xs, mean, std
}

// AddSeeds draws each curve thin in colour i.
func AddSeeds(p *chart.Panel, curves []Curve, i int) {
	for _, c := range curves {
		if len(c) > 0 {
			p.Add(&chart.Line{Pts: c, Colour: Colour(i, 0x70), Width: SeedWidth})
		}
	}
}

// AddMean draws the curves' mean bold with dots in colour i; it returns
// the line for the legend (nil when there is nothing to draw).
func AddMean(p *chart.Panel, curves []Curve, i int) chart.Mark {
	xs, mean, _ := MeanBand(curves)
	if len(xs) == 0 {
		return nil
	}
	pts := xyOf(xs, mean)
	l := &chart.Line{Pts: pts, Colour: Colour(i, 0xff), Width: MeanWidth}
	p.Add(l, &chart.Dots{Pts: pts, Colour: Colour(i, 0xff), Radius: 3.5})
	return l
}

// AddBand draws the curves' mean in colour i with its ±std band; it
// returns the line for the legend (nil when there is nothing to draw).
func AddBand(p *chart.Panel, curves []Curve, i int) chart.Mark {
	xs, mean, std := MeanBand(curves)
	if len(xs) == 0 {
		return nil
	}
	var band []chart.XY
	for k := range xs {
		if !math.IsNaN(std[k]) {
			band = append(band, chart.XY{X: xs[k], Y: mean[k] + std[k]})
		}
	}
	for k := len(xs) - 1; k >= 0; k-- {
		if !math.IsNaN(std[k]) {
			band = append(band, chart.XY{X: xs[k], Y: mean[k] - std[k]})
		}
	}
	if len(band) >= 4 {
		p.Add(&chart.Area{Pts: band, Fill: Colour(i, 0x38)})
	}
	l := &chart.Line{Pts: xyOf(xs, mean), Colour: Colour(i, 0xff), Width: 2.7}
	p.Add(l)
	return l
}

// Steps is ys against 1, 2, …: a curve of one value per update.
func Steps(ys []float64) Curve {
	out := make(Curve, len(ys))
	for i, y := range ys {
		out[i] = chart.XY{X: float64(i + 1), Y: y}
	}
	return out
}

func xyOf(xs, ys []float64) Curve {
	out := make(Curve, len(xs))
	for k := range xs {
		out[k] = chart.XY{X: xs[k], Y: ys[k]}
	}
	return out
}

// SaveSVG draws panels (rows × columns) in a grid with the legend in a
// strip on the right into an SVG of w × h pixels, written atomically.
func SaveSVG(path string, w, h float64, panels [][]*chart.Panel, legend []chart.Entry) error {
	f := &chart.Figure{Width: w, Height: h, Panels: panels, Legend: legend}
	return engine.WriteFileAtomic(path, 0o644, func(out io.Writer) error {
		_, err := f.WriteTo(out)
		return err
	})
}

package run

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"arew/engine"
)

// The plot kit every figure of the project is drawn with (gonum/plot):
// one palette, one resolution, one layout (SavePNG: panels in a grid, the
// legend in a strip on the right), and the series a sweep draws: each
// seed thin (AddSeeds), the mean over the seeds bold with dots (AddMean),
// or the mean with a ±1 standard deviation band (AddBand).
const (
	plotDPI = 110
	// SeedWidth and MeanWidth are the widths (points) of one seed's line
	// and of the mean's.
	SeedWidth = 0.8
	MeanWidth = 2.6
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

// Colour is the i-th series colour at opacity alpha (premultiplied, as
// image/color expects: channels ≤ alpha).
func Colour(i int, alpha uint8) color.RGBA {
	c := palette[i%len(palette)]
	c.A = alpha
	c.R = uint8(uint16(c.R) * uint16(alpha) / 255)
	c.G = uint8(uint16(c.G) * uint16(alpha) / 255)
	c.B = uint8(uint16(c.B) * uint16(alpha) / 255)
	return c
}

// NewPlot is a panel with its title and axis labels, y in [0, 1] and a
// grid.
func NewPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
	p.Y.Min, p.Y.Max = 0, 1
	p.Add(plotter.NewGrid())
	return p
}

// Curve is one run's values against its updates.
type Curve = plotter.XYs

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
func AddSeeds(p *plot.Plot, curves []Curve, i int) error {
	for _, c := range curves {
		if len(c) == 0 {
			continue
		}
		l, err := plotter.NewLine(c)
		if err != nil {
			return fmt.Errorf("plots: %w", err)
		}
		l.Color, l.Width = Colour(i, 0x70), vg.Points(SeedWidth)
		p.Add(l)
	}
	return nil
}

// AddMean draws the curves' mean bold with dots in colour i; it returns
// the line for the legend (nil when there is nothing to draw).
func AddMean(p *plot.Plot, curves []Curve, i int) (plot.Thumbnailer, error) {
	xs, mean, _ := MeanBand(curves)
	if len(xs) == 0 {
		return nil, nil
	}
	l, pts, err := plotter.NewLinePoints(xyOf(xs, mean))
	if err != nil {
		return nil, fmt.Errorf("plots: %w", err)
	}
	l.Color, l.Width = Colour(i, 0xff), vg.Points(MeanWidth)
	pts.Color, pts.Radius, pts.Shape = Colour(i, 0xff), vg.Points(2.6), draw.CircleGlyph{}
	p.Add(l, pts)
	return l, nil
}

// AddBand draws the curves' mean in colour i with its ±std band; it
// returns the line for the legend (nil when there is nothing to draw).
func AddBand(p *plot.Plot, curves []Curve, i int) (plot.Thumbnailer, error) {
	xs, mean, std := MeanBand(curves)
	if len(xs) == 0 {
		return nil, nil
	}
	var band plotter.XYs
	for k := range xs {
		if !math.IsNaN(std[k]) {
			band = append(band, plotter.XY{X: xs[k], Y: mean[k] + std[k]})
		}
	}
	for k := len(xs) - 1; k >= 0; k-- {
		if !math.IsNaN(std[k]) {
			band = append(band, plotter.XY{X: xs[k], Y: mean[k] - std[k]})
		}
	}
	if len(band) >= 4 {
		poly, err := plotter.NewPolygon(band)
		if err != nil {
			return nil, fmt.Errorf("plots: %w", err)
		}
		poly.Color = Colour(i, 0x38)
		poly.LineStyle.Width = 0
		p.Add(poly)
	}
	l, err := plotter.NewLine(xyOf(xs, mean))
	if err != nil {
		return nil, fmt.Errorf("plots: %w", err)
	}
	l.Color, l.Width = Colour(i, 0xff), vg.Points(2)
	p.Add(l)
	return l, nil
}

// Steps is ys against 1, 2, …: a curve of one value per update.
func Steps(ys []float64) Curve {
	out := make(Curve, len(ys))
	for i, y := range ys {
		out[i] = plotter.XY{X: float64(i + 1), Y: y}
	}
	return out
}

func xyOf(xs, ys []float64) plotter.XYs {
	out := make(plotter.XYs, len(xs))
	for k := range xs {
		out[k] = plotter.XY{X: xs[k], Y: ys[k]}
	}
	return out
}

// SavePNG draws panels (rows × columns) in a grid with the legend in a
// strip on the right into a PNG of w × h, written atomically.
func SavePNG(path string, w, h vg.Length, panels [][]*plot.Plot, legend plot.Legend) error {
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

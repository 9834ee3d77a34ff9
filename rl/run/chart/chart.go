// Package chart draws the project's figures as SVG: panels of lines,
// bands, markers and bars on a grid of panels, with the legend in a strip
// on the right.
//
// SVG is text: a figure diffs like code, opens in any browser and renders
// on any forge, and needs no font files (the viewer sets the text). One
// unit is one pixel at 96 per inch. Numbers are written with one decimal,
// so the same data always give the same bytes.
//
// A Panel's axis ranges start where its caller sets them and grow to
// cover every finite point of its marks; its ticks are 1, 2 or 5 × 10^k
// apart, about five to an axis.
package chart

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// XY is one point in data coordinates.
type XY struct{ X, Y float64 }

// Range is an axis's extent. Empty() is the range that covers nothing
// yet, so the data alone decide it.
type Range struct{ Min, Max float64 }

// Empty is the range that the first finite value sets.
func Empty() Range { return Range{math.Inf(1), math.Inf(-1)} }

// Include grows r to cover v (non-finite values are skipped).
func (r *Range) Include(v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return
	}
	r.Min, r.Max = min(r.Min, v), max(r.Max, v)
}

// Panel is one plot: its text, its axes and what is drawn on it, in
// order (later marks over earlier ones).
type Panel struct {
	Title, XLabel, YLabel string
	X, Y                  Range
	// Nominal, when set, names the x positions 0, 1, …; the names are
	// written slanted under the axis in place of numeric ticks.
	Nominal []string
	Marks   []Mark
}

// NewPanel is a panel with its text, x decided by the data and y by
// [ymin, ymax] and the data.
func NewPanel(title, xlabel, ylabel string, ymin, ymax float64) *Panel {
	return &Panel{Title: title, XLabel: xlabel, YLabel: ylabel, X: Empty(), Y: Range{ymin, ymax}}
}

// Add appends marks to the panel.
func (p *Panel) Add(ms ...Mark) { p.Marks = append(p.Marks, ms...) }

// Entry is one legend line: a thumbnail of Mark and its label.
type Entry struct {
	Label string
	Mark  Mark
}

// Figure is panels in rows × columns, Width × Height pixels in all,
// with the legend (if any) in a strip on the right.
type Figure struct {
	Width, Height float64
	Panels        [][]*Panel
	Legend        []Entry
}

// Layout constants, in pixels.
const (
	fontSize   = 12.0
	charWidth  = 0.58 * fontSize // a rough width of one character, for the legend strip
	marginL    = 62.0            // tick labels and the y label
	marginR    = 14.0
	marginT    = 28.0 // the title
	marginB    = 44.0 // tick labels and the x label
	nominalB   = 110.0
	thumbWidth = 28.0
	legendRow  = 18.0
	tickLen    = 4.0
)

// WriteTo writes the figure as one SVG document.
func (f *Figure) WriteTo(w io.Writer) (int64, error) {
	s := &svg{}
	s.printf(`<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" font-family="sans-serif" font-size="%s">`+"\n",
		num(f.Width), num(f.Height), num(f.Width), num(f.Height), num(fontSize))
	s.printf(`<rect width="%s" height="%s" fill="white"/>`+"\n", num(f.Width), num(f.Height))
	strip := 0.0
	for _, e := range f.Legend {
		strip = max(strip, thumbWidth+12+charWidth*float64(utf8.RuneCountInString(e.Label))+16)
	}
	if rows := len(f.Panels); rows > 0 {
		cellH := f.Height / float64(rows)
		for r, row := range f.Panels {
			cellW := (f.Width - strip) / float64(max(1, len(row)))
			for c, p := range row {
				if p != nil {
					p.draw(s, float64(c)*cellW, float64(r)*cellH, cellW, cellH)
				}
			}
		}
	}
	if len(f.Legend) > 0 {
		drawLegend(s, f.Width-strip+8, marginT, f.Legend)
	}
	s.printf("</svg>\n")
	n, err := io.WriteString(w, s.b.String())
	return int64(n), err
}

// transform maps data coordinates into the panel's box.
type transform struct {
	x0, y0, w, h float64 // the box: left, bottom, width, height
	x, y         Range
}

func (t transform) px(x float64) float64 { return t.x0 + (x-t.x.Min)/(t.x.Max-t.x.Min)*t.w }
func (t transform) py(y float64) float64 { return t.y0 - (y-t.y.Min)/(t.y.Max-t.y.Min)*t.h }

// draw writes the panel into the cell at (left, top) of size w × h.
func (p *Panel) draw(s *svg, left, top, w, h float64) {
	xr, yr := p.X, p.Y
	for _, m := range p.Marks {
		m.extent(&xr, &yr)
	}
	if p.Nominal != nil {
		xr.Include(-0.5)
		xr.Include(float64(len(p.Nominal)) - 0.5)
	}
	xr, yr = widen(xr), widen(yr)
	bottom := marginB
	if p.Nominal != nil {
		bottom = nominalB
	}
	t := transform{x0: left + marginL, y0: top + h - bottom, w: w - marginL - marginR, h: h - marginT - bottom, x: xr, y: yr}
	if t.w <= 0 || t.h <= 0 {
		return
	}
	s.printf("<g>\n")
	// The grid and the ticks.
	for _, v := range ticks(yr) {
		y := t.py(v)
		s.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#e0e0e0" stroke-width="1"/>`+"\n", num(t.x0), num(y), num(t.x0+t.w), num(y))
		s.text(t.x0-tickLen-3, y+4, "end", 0, label(v, yr))
	}
	if p.Nominal != nil {
		for i, name := range p.Nominal {
			x := t.px(float64(i))
			s.text(x+4, t.y0+tickLen+10, "end", -45, name)
		}
	} else {
		for _, v := range ticks(xr) {
			x := t.px(v)
			s.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#e0e0e0" stroke-width="1"/>`+"\n", num(x), num(t.y0), num(x), num(t.y0-t.h))
			s.text(x, t.y0+tickLen+12, "middle", 0, label(v, xr))
		}
	}
	s.printf(`<rect x="%s" y="%s" width="%s" height="%s" fill="none" stroke="#333333" stroke-width="1"/>`+"\n",
		num(t.x0), num(t.y0-t.h), num(t.w), num(t.h))
	for _, m := range p.Marks {
		m.draw(s, t)
	}
	// The text.
	if p.Title != "" {
		s.text(t.x0+t.w/2, top+marginT-10, "middle", 0, p.Title)
	}
	if p.XLabel != "" && p.Nominal == nil {
		s.text(t.x0+t.w/2, t.y0+marginB-6, "middle", 0, p.XLabel)
	}
	if p.YLabel != "" {
		s.text(left+14, t.y0-t.h/2, "middle", -90, p.YLabel)
	}
	s.printf("</g>\n")
}

// widen makes a range drawable: an empty one is [0, 1], a single value
// gets a unit around it.
func widen(r Range) Range {
	switch {
	case r.Min > r.Max:
		return Range{0, 1}
	case r.Min == r.Max:
		return Range{r.Min - 0.5, r.Max + 0.5}
	}
	return r
}

// step is the tick spacing for r: 1, 2 or 5 × 10^k, the smallest that
// gives at most six ticks.
func step(r Range) float64 {
	raw := (r.Max - r.Min) / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			return m * mag
		}
	}
	return 10 * mag
}

// ticks are the multiples of step(r) inside r.
func ticks(r Range) []float64 {
	st := step(r)
	var out []float64
	for k := math.Ceil(r.Min/st - 1e-9); k*st <= r.Max+1e-9*st; k++ {
		out = append(out, k*st)
	}
	return out
}

// label writes a tick value with as many decimals as its step needs.
func label(v float64, r Range) string {
	decimals := max(0, int(-math.Floor(math.Log10(step(r))+1e-9)))
	if math.Abs(v) < 1e-12 {
		v = 0
	}
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

func drawLegend(s *svg, x, y float64, entries []Entry) {
	for i, e := range entries {
		cy := y + float64(i)*legendRow
		if e.Mark != nil {
			e.Mark.thumb(s, x, cy, thumbWidth)
		}
		s.text(x+thumbWidth+8, cy+4, "start", 0, e.Label)
	}
}

// svg accumulates the document.
type svg struct{ b strings.Builder }

func (s *svg) printf(format string, a ...any) { fmt.Fprintf(&s.b, format, a...) }

// text writes a label anchored at (x, y) (start, middle or end), rotated
// by deg degrees about that point.
func (s *svg) text(x, y float64, anchor string, deg float64, txt string) {
	rot := ""
	if deg != 0 {
		rot = fmt.Sprintf(` transform="rotate(%s %s %s)"`, num(deg), num(x), num(y))
	}
	s.printf(`<text x="%s" y="%s" text-anchor="%s"%s>%s</text>`+"\n", num(x), num(y), anchor, rot, escape.Replace(txt))
}

var escape = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")

// num is a coordinate with one decimal ("12.5", "-3", "0").
func num(v float64) string {
	v = math.Round(v*10) / 10
	if v == 0 {
		v = 0 // no "-0"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// paint is a colour and its opacity as SVG attributes of kind (fill or
// stroke); a transparent colour paints nothing.
func paint(kind string, c color.NRGBA) string {
	if c.A == 0 {
		return fmt.Sprintf(` %s="none"`, kind)
	}
	out := fmt.Sprintf(` %s="#%02x%02x%02x"`, kind, c.R, c.G, c.B)
	if c.A != 0xff {
		out += fmt.Sprintf(` %s-opacity="%s"`, kind, strconv.FormatFloat(float64(c.A)/255, 'f', 3, 64))
	}
	return out
}

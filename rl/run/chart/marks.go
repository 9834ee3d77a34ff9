package chart

import (
	"fmt"
	"image/color"
	"math"
	"strings"
)

// Mark is something drawn on a panel: it widens the panel's ranges to
// cover itself, draws itself in the panel's coordinates, and draws a
// thumbnail of itself for the legend (w wide, centred on y).
type Mark interface {
	extent(x, y *Range)
	draw(s *svg, t transform)
	thumb(s *svg, x, y, w float64)
}

// Line joins its points in order; a non-finite point breaks it. Width is
// in pixels; Dash, when set, alternates drawn and blank lengths.
type Line struct {
	Pts    []XY
	Colour color.NRGBA
	Width  float64
	Dash   []float64
}

func (l *Line) extent(x, y *Range) { extentOf(l.Pts, x, y) }

func (l *Line) draw(s *svg, t transform) {
	var run []string
	flush := func() {
		if len(run) > 1 {
			s.printf(`<polyline points="%s" fill="none"%s/>`+"\n", strings.Join(run, " "), l.stroke())
		}
		run = run[:0]
	}
	for _, p := range l.Pts {
		if !finite(p) {
			flush()
			continue
		}
		run = append(run, num(t.px(p.X))+","+num(t.py(p.Y)))
	}
	flush()
}

func (l *Line) thumb(s *svg, x, y, w float64) {
	s.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s"%s/>`+"\n", num(x), num(y), num(x+w), num(y), l.stroke())
}

func (l *Line) stroke() string {
	out := paint("stroke", l.Colour) + fmt.Sprintf(` stroke-width="%s"`, num(l.Width))
	if len(l.Dash) > 0 {
		d := make([]string, len(l.Dash))
		for i, v := range l.Dash {
			d[i] = num(v)
		}
		out += ` stroke-dasharray="` + strings.Join(d, ",") + `"`
	}
	return out
}

// Shape is a marker's outline.
type Shape int

// The markers.
const (
	Circle   Shape = iota // filled disc
	Triangle              // filled, pointing up
	Square                // outlined
	Cross                 // a diagonal cross
	Ring                  // an outlined circle
)

// Dots puts a marker of Shape on each finite point; Radius is in pixels.
type Dots struct {
	Pts    []XY
	Colour color.NRGBA
	Radius float64
	Shape  Shape
}

func (d *Dots) extent(x, y *Range) { extentOf(d.Pts, x, y) }

func (d *Dots) draw(s *svg, t transform) {
	for _, p := range d.Pts {
		if finite(p) {
			d.marker(s, t.px(p.X), t.py(p.Y))
		}
	}
}

func (d *Dots) thumb(s *svg, x, y, w float64) { d.marker(s, x+w/2, y) }

func (d *Dots) marker(s *svg, x, y float64) {
	r := d.Radius
	switch d.Shape {
	case Triangle:
		s.printf(`<polygon points="%s,%s %s,%s %s,%s"%s/>`+"\n",
			num(x), num(y-r), num(x-r*0.87), num(y+r/2), num(x+r*0.87), num(y+r/2), paint("fill", d.Colour))
	case Square:
		s.printf(`<rect x="%s" y="%s" width="%s" height="%s" fill="none"%s stroke-width="1.3"/>`+"\n",
			num(x-r*0.8), num(y-r*0.8), num(1.6*r), num(1.6*r), paint("stroke", d.Colour))
	case Cross:
		k := r * 0.75
		s.printf(`<path d="M%s %sL%s %sM%s %sL%s %s"%s stroke-width="1.5"/>`+"\n",
			num(x-k), num(y-k), num(x+k), num(y+k), num(x-k), num(y+k), num(x+k), num(y-k), paint("stroke", d.Colour))
	case Ring:
		s.printf(`<circle cx="%s" cy="%s" r="%s" fill="none"%s stroke-width="1.3"/>`+"\n", num(x), num(y), num(r), paint("stroke", d.Colour))
	default:
		s.printf(`<circle cx="%s" cy="%s" r="%s"%s/>`+"\n", num(x), num(y), num(r), paint("fill", d.Colour))
	}
}

// Area is a closed polygon through its points, filled with Fill and, when
// Edge is not transparent, outlined with it (Width pixels, Dash as for
// Line).
type Area struct {
	Pts   []XY
	Fill  color.NRGBA
	Edge  color.NRGBA
	Width float64
	Dash  []float64
}

func (a *Area) extent(x, y *Range) { extentOf(a.Pts, x, y) }

func (a *Area) draw(s *svg, t transform) {
	var pts []string
	for _, p := range a.Pts {
		if finite(p) {
			pts = append(pts, num(t.px(p.X))+","+num(t.py(p.Y)))
		}
	}
	if len(pts) > 2 {
		s.printf(`<polygon points="%s"%s%s/>`+"\n", strings.Join(pts, " "), paint("fill", a.Fill), a.edge())
	}
}

func (a *Area) thumb(s *svg, x, y, w float64) {
	s.printf(`<rect x="%s" y="%s" width="%s" height="10"%s%s/>`+"\n", num(x), num(y-5), num(w), paint("fill", a.Fill), a.edge())
}

func (a *Area) edge() string {
	if a.Edge.A == 0 {
		return ""
	}
	return (&Line{Colour: a.Edge, Width: a.Width, Dash: a.Dash}).stroke()
}

// Bars draws Values[i] as a bar at x = i, Width pixels wide, from zero,
// with a whisker of ±Errs[i] when Errs is set.
type Bars struct {
	Values, Errs []float64
	Colour       color.NRGBA
	Width        float64
}

func (b *Bars) extent(x, y *Range) {
	for i, v := range b.Values {
		x.Include(float64(i))
		y.Include(0)
		e := 0.0
		if i < len(b.Errs) {
			e = b.Errs[i]
		}
		y.Include(v + e)
		y.Include(v - e)
	}
}

func (b *Bars) draw(s *svg, t transform) {
	for i, v := range b.Values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		x, y0, y1 := t.px(float64(i)), t.py(0), t.py(v)
		s.printf(`<rect x="%s" y="%s" width="%s" height="%s"%s/>`+"\n",
			num(x-b.Width/2), num(min(y0, y1)), num(b.Width), num(math.Abs(y0-y1)), paint("fill", b.Colour))
		if i < len(b.Errs) && b.Errs[i] > 0 {
			lo, hi := t.py(v-b.Errs[i]), t.py(v+b.Errs[i])
			s.printf(`<path d="M%s %sL%s %sM%s %sL%s %sM%s %sL%s %s" stroke="#000000" stroke-width="1"/>`+"\n",
				num(x), num(lo), num(x), num(hi), num(x-4), num(lo), num(x+4), num(lo), num(x-4), num(hi), num(x+4), num(hi))
		}
	}
}

func (b *Bars) thumb(s *svg, x, y, w float64) {
	s.printf(`<rect x="%s" y="%s" width="%s" height="10"%s/>`+"\n", num(x), num(y-5), num(w), paint("fill", b.Colour))
}

func finite(p XY) bool {
	return !math.IsNaN(p.X) && !math.IsInf(p.X, 0) && !math.IsNaN(p.Y) && !math.IsInf(p.Y, 0)
}

func extentOf(pts []XY, x, y *Range) {
	for _, p := range pts {
		if finite(p) {
			x.Include(p.X)
			y.Include(p.Y)
		}
	}
}

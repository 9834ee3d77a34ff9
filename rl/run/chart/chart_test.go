package chart

import (
	"bytes"
	"encoding/xml"
	"image/color"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTicksAreRoundAndInside(t *testing.T) {
	for _, tc := range []struct {
		r    Range
		want []float64
	}{
		{Range{0, 1}, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}},
		{Range{0, 100}, []float64{0, 20, 40, 60, 80, 100}},
		{Range{-3, 7}, []float64{-2, 0, 2, 4, 6}},
		{Range{1, 40}, []float64{10, 20, 30, 40}},
		{Range{0.01, 0.034}, []float64{0.01, 0.015, 0.02, 0.025, 0.03}},
	} {
		got := ticks(tc.r)
		require.Len(t, got, len(tc.want), "%v", tc.r)
		for i := range got {
			assert.InDelta(t, tc.want[i], got[i], 1e-12, "%v", tc.r)
		}
	}
	assert.Equal(t, "0.4", label(0.4, Range{0, 1}))
	assert.Equal(t, "60", label(60, Range{0, 100}))
	assert.Equal(t, "0.015", label(0.015, Range{0.01, 0.034}))
}

func TestRangesGrowToTheData(t *testing.T) {
	p := NewPanel("t", "x", "y", 0, 1)
	p.Add(&Line{Pts: []XY{{1, -0.5}, {3, 0.5}, {math.NaN(), 9}}})
	x, y := p.X, p.Y
	for _, m := range p.Marks {
		m.extent(&x, &y)
	}
	assert.Equal(t, Range{1, 3}, x)
	assert.Equal(t, Range{-0.5, 1}, y, "y keeps [0, 1] and covers the data; the NaN point is skipped")
	assert.Equal(t, Range{0, 1}, widen(Empty()))
	assert.Equal(t, Range{1.5, 2.5}, widen(Range{2, 2}))
}

// A non-finite point breaks a line into the runs on either side of it.
func TestLineBreaksAtNonFinitePoints(t *testing.T) {
	s := &svg{}
	l := &Line{Pts: []XY{{0, 0}, {1, 1}, {2, math.NaN()}, {3, 0}, {4, 1}, {5, math.Inf(1)}, {6, 0}}, Width: 1, Colour: color.NRGBA{A: 0xff}}
	l.draw(s, transform{x0: 0, y0: 100, w: 100, h: 100, x: Range{0, 6}, y: Range{0, 1}})
	assert.Equal(t, 2, strings.Count(s.b.String(), "<polyline"), s.b.String())
}

func figure() *Figure {
	p := NewPanel(`a <title> & "quotes"`, "update", "success", 0, 1)
	line := &Line{Pts: []XY{{0, 0.1}, {10, 0.6}}, Colour: color.NRGBA{0x1f, 0x77, 0xb4, 0xff}, Width: 2}
	band := &Area{Pts: []XY{{0, 0}, {10, 0.5}, {10, 0.7}, {0, 0.2}}, Fill: color.NRGBA{0x1f, 0x77, 0xb4, 0x38}}
	dots := &Dots{Pts: []XY{{5, 0.3}}, Colour: color.NRGBA{A: 0xff}, Radius: 4, Shape: Cross}
	p.Add(band, line, dots)
	bars := &Panel{Title: "bars", Y: Range{0, 100}, X: Empty(), Nominal: []string{"IL", "IL w/ ACT"},
		Marks: []Mark{&Bars{Values: []float64{40, 55}, Errs: []float64{3, 4}, Colour: color.NRGBA{0xff, 0x7f, 0x0e, 0xff}, Width: 18}}}
	return &Figure{Width: 900, Height: 400, Panels: [][]*Panel{{p, bars}},
		Legend: []Entry{{"mean", line}, {"± std", band}, {"baseline ≤ δ", dots}}}
}

// A figure is one well-formed SVG document, and the same figure is the
// same bytes.
func TestFigureIsWellFormedAndDeterministic(t *testing.T) {
	var a, b bytes.Buffer
	_, err := figure().WriteTo(&a)
	require.NoError(t, err)
	_, err = figure().WriteTo(&b)
	require.NoError(t, err)
	assert.Equal(t, a.String(), b.String())

	d := xml.NewDecoder(bytes.NewReader(a.Bytes()))
	elements := map[string]int{}
	var text []string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		switch tok := tok.(type) {
		case xml.StartElement:
			elements[tok.Name.Local]++
		case xml.CharData:
			if s := strings.TrimSpace(string(tok)); s != "" {
				text = append(text, s)
			}
		}
	}
	assert.Equal(t, 1, elements["svg"])
	assert.Equal(t, 1, elements["polyline"], "the line")
	assert.Equal(t, 1, elements["polygon"], "the band")
	assert.Equal(t, 1+2+1+2, elements["rect"], "the background, two frames, the bars' thumbnail and the band's, two bars")
	assert.Contains(t, text, `a <title> & "quotes"`, "the title, escaped and read back")
	assert.Contains(t, text, "IL w/ ACT", "a nominal tick")
	assert.Contains(t, text, "baseline ≤ δ")
}

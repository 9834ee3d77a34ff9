package study

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// The plotting helpers other result packages (rl/act) draw with, so that
// every figure of the project shares one palette, resolution and layout.

// Colour is the i-th series colour of the study plots at opacity alpha
// (premultiplied, as image/color expects).
func Colour(i int, alpha uint8) color.RGBA { return colour(i, alpha) }

// SavePNG draws panels (rows × columns) with the legend in a strip on the
// right into a PNG of w × h at the study plots' resolution, written
// atomically.
func SavePNG(path string, w, h vg.Length, panels [][]*plot.Plot, legend plot.Legend) error {
	return savePNG(path, w, h, panels, legend)
}

package run

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMeanStd(t *testing.T) {
	for _, tc := range []struct {
		name      string
		xs        []float64
		mean, std float64
		n         int
	}{
		{"empty", nil, math.NaN(), math.NaN(), 0},
		{"one", []float64{0.4}, 0.4, math.NaN(), 1},
		{"two", []float64{0, 1}, 0.5, math.Sqrt(0.5), 2},
		{"NaN skipped", []float64{1, math.NaN(), 3}, 2, math.Sqrt(2), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mean, std, n := MeanStd(tc.xs)
			assert.Equal(t, tc.n, n)
			if math.IsNaN(tc.mean) {
				assert.True(t, math.IsNaN(mean))
			} else {
				assert.InDelta(t, tc.mean, mean, 1e-12)
			}
			if math.IsNaN(tc.std) {
				assert.True(t, math.IsNaN(std))
			} else {
				assert.InDelta(t, tc.std, std, 1e-12)
			}
		})
	}
}

// PairedOf differences seed by seed; SE is their std over √pairs.
func TestPairedSE(t *testing.T) {
	p := PairedOf([]float64{10, 0, 4}, []float64{5, 0, 6})
	assert.Equal(t, []float64{5, 0, -2}, p.Deltas)
	assert.InDelta(t, math.Sqrt(13.0/3), p.SE(), 1e-12, "std of 5, 0, -2 is √13, over √3")
	assert.True(t, math.IsNaN(PairedOf([]float64{1}, []float64{0}).SE()), "one pair has no SE")
}

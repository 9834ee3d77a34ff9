package run

import (
	"math"
	"strconv"
)

// MeanStd is the mean and the sample standard deviation (n − 1 in the
// denominator; NaN for fewer than two values) of the finite xs, summed in
// float64, and how many there were: every "mean ± std over the seeds" of
// a report, a summary or a plot.
func MeanStd(xs []float64) (mean, std float64, n int) {
	sum := 0.0
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			sum += x
			n++
		}
	}
	if n == 0 {
		return math.NaN(), math.NaN(), 0
	}
	mean = sum / float64(n)
	if n < 2 {
		return mean, math.NaN(), n
	}
	ss := 0.0
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			ss += (x - mean) * (x - mean)
		}
	}
	return mean, math.Sqrt(ss / float64(n-1)), n
}

// Paired are two arms' values compared seed by seed: the differences
// a[i] − b[i] (NaN where either is missing), and their mean and sample
// std over the Pairs seeds that have both (MeanStd).
type Paired struct {
	Deltas    []float64
	Mean, Std float64
	Pairs     int
}

// SE is the standard error of the mean difference: Std over √Pairs (NaN
// for fewer than two pairs).
func (p Paired) SE() float64 {
	if p.Pairs < 2 {
		return math.NaN()
	}
	return p.Std / math.Sqrt(float64(p.Pairs))
}

// PairedOf pairs a and b seed by seed (the shorter's length).
func PairedOf(a, b []float64) Paired {
	var p Paired
	for i := range min(len(a), len(b)) {
		p.Deltas = append(p.Deltas, a[i]-b[i])
	}
	p.Mean, p.Std, p.Pairs = MeanStd(p.Deltas)
	return p
}

// Fixed writes x with prec decimals, or – when it is not finite: the
// numbers of every report's tables.
func Fixed(x float64, prec int) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "–"
	}
	return strconv.FormatFloat(x, 'f', prec, 64)
}

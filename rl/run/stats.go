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

// Fixed writes x with prec decimals, or – when it is not finite: the
// numbers of every report's tables.
func Fixed(x float64, prec int) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "–"
	}
	return strconv.FormatFloat(x, 'f', prec, 64)
}

package optim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fdCheck compares an analytic gradient with central differences of f in
// float64, (f(x+h) − f(x−h)) / 2h, on every entry of x.
func fdCheck(t *testing.T, x []float64, grad []float64, f func(x []float64) float64, h, tol float64) {
	t.Helper()
	require.Len(t, grad, len(x))
	xp := append([]float64(nil), x...)
	for i := range x {
		xp[i] = x[i] + h
		fp := f(xp)
		xp[i] = x[i] - h
		fm := f(xp)
		xp[i] = x[i]
		num := (fp - fm) / (2 * h)
		assert.InDelta(t, num, grad[i], tol*math.Max(1, math.Abs(num)), "entry %d", i)
	}
}

// randomBatch packs nSeq sequences of 1..maxLen tokens; about 70% of tokens
// are agent tokens, and every fifth sequence has none (a fully masked
// sequence, which every aggregation must skip).
func randomBatch(rng *rand.Rand, nSeq, maxLen int) Packed {
	b := Packed{Offsets: []int32{0}}
	for i := range nSeq {
		l := 1 + rng.IntN(maxLen)
		for range l {
			var m uint8
			if i%5 != 4 && rng.Float64() < 0.7 {
				m = 1
			}
			b.Mask = append(b.Mask, m)
		}
		b.Offsets = append(b.Offsets, int32(len(b.Mask)))
	}
	return b
}

// normals draws n values N(mean, std²).
func normals(rng *rand.Rand, n int, mean, std float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = mean + std*rng.NormFloat64()
	}
	return x
}

// policyInputs draws log-probs in [−3, −0.05], old log-probs that differ by
// N(0, 0.3²), or by N(0, 2²) for one token in six (so a fair share of
// ratios falls outside a 0.2 clip range and some above 3 for the dual
// clip), and advantages N(0, 1).
func policyInputs(rng *rand.Rand, n int) (logp, old, adv []float64) {
	logp = make([]float64, n)
	old = make([]float64, n)
	for i := range logp {
		logp[i] = -0.05 - 2.95*rng.Float64()
		std := 0.3
		if rng.IntN(6) == 0 {
			std = 2
		}
		old[i] = logp[i] + std*rng.NormFloat64()
	}
	return logp, old, normals(rng, n, 0, 1)
}

// sub returns sequences [lo, hi) of b as a batch of their own, and the token
// range they cover.
func sub(b Packed, lo, hi int) (Packed, int, int) {
	t0, t1 := b.Offsets[lo], b.Offsets[hi]
	s := Packed{Mask: b.Mask[t0:t1]}
	for i := lo; i <= hi; i++ {
		s.Offsets = append(s.Offsets, b.Offsets[i]-t0)
	}
	return s, int(t0), int(t1)
}

// allAggs lists one aggregation of each mode.
func allAggs() []Agg {
	return []Agg{
		{Mode: TokenMean},
		{Mode: SeqMeanTokenSum},
		{Mode: SeqMeanTokenMean},
		{Mode: SeqMeanTokenSumNorm, NormConst: 16},
	}
}

package optim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Per-token values and derivatives, x = logp − ref:
//
//	x = 0.5:  k1 = 0.5 (∂ 1); abs = 0.5 (∂ 1); k2 = ½·0.25 = 0.125 (∂ 0.5);
//	          k3: y = −0.5, e^{−0.5} + 0.5 − 1 = 0.1065307 (∂ 1 − e^{−0.5} = 0.3934693)
//	x = −0.5: k1 = −0.5 (∂ 1); abs = 0.5 (∂ −1); k2 = 0.125 (∂ −0.5);
//	          k3: y = 0.5, e^{0.5} − 0.5 − 1 = 0.1487213 (∂ 1 − e^{0.5} = −0.6487213)
//	x = −2:   k3 = e² − 3 = 4.3890561 (∂ 1 − e² = −6.3890561)
//	x = −3:   k3 = e³ − 4 = 16.09 → clamped to 10, ∂ 0
//	x = −30:  y clamped to 20, e^{20} − 21 → 10, ∂ 0
//	x = 5:    k3 = e^{−5} + 4 = 4.0067379 (∂ 1 − e^{−5} = 0.9932621)
//	x = 25:   y clamped to −20, e^{−20} + 19 → 10, ∂ 0
//	x = 0:    abs = 0 with ∂ 0 (torch's sign(0)); k3 = 0, ∂ 0
func TestKLTokenHandValues(t *testing.T) {
	cases := []struct {
		e       KLEstimator
		x       float64
		val, dv float64
	}{
		{KLK1, 0.5, 0.5, 1}, {KLAbs, 0.5, 0.5, 1}, {KLK2, 0.5, 0.125, 0.5}, {KLK3, 0.5, 0.1065307, 0.3934693},
		{KLK1, -0.5, -0.5, 1}, {KLAbs, -0.5, 0.5, -1}, {KLK2, -0.5, 0.125, -0.5}, {KLK3, -0.5, 0.1487213, -0.6487213},
		{KLK3, -2, 4.3890561, -6.3890561}, {KLK3, -3, 10, 0}, {KLK3, -30, 10, 0},
		{KLK3, 5, 4.0067379, 0.9932621}, {KLK3, 25, 10, 0},
		{KLAbs, 0, 0, 0}, {KLK3, 0, 0, 0},
		{"k1", 0.5, 0.5, 1}, {"k2", 0.5, 0.125, 0.5}, {"k3", 0.5, 0.1065307, 0.3934693},
	}
	for _, c := range cases {
		v, d, err := KLToken(c.e, -1+c.x, -1)
		require.NoError(t, err)
		assert.InDelta(t, c.val, v, 1e-7, "%s at %v", c.e, c.x)
		assert.InDelta(t, c.dv, d, 1e-7, "%s' at %v", c.e, c.x)
	}
	_, _, err := KLToken("full", 0, 0)
	assert.ErrorContains(t, err, "unknown KL estimator")
}

// The aggregated loss: coef 0.1, token-mean of k2 over x = (0.5, −1) is
// ½(0.125 + 0.5) = 0.3125, Loss = 0.03125, ∂Loss/∂logp = 0.1·½·(0.5, −1).
func TestKLPenaltyHandValues(t *testing.T) {
	b := Packed{Offsets: []int32{0, 3}, Mask: []uint8{1, 0, 1}}
	r, err := KLPenalty([]float64{-0.5, 0, -2}, []float64{-1, math.NaN(), -1}, b, KLConfig{Estimator: KLK2, Coef: 0.1, Agg: Agg{Mode: TokenMean}})
	require.NoError(t, err)
	assert.InDelta(t, 0.3125, r.KL, 1e-12)
	assert.InDelta(t, 0.03125, r.Loss, 1e-12)
	assert.InDeltaSlice(t, []float64{0.025, 0, -0.05}, r.DLogp, 1e-12)

	_, err = KLPenalty([]float64{0}, []float64{0}, Packed{Offsets: []int32{0, 1}, Mask: []uint8{1}}, KLConfig{Estimator: "k4", Agg: Agg{Mode: TokenMean}})
	assert.ErrorContains(t, err, "k4")
}

// Finite differences for every estimator and aggregation; log-ratios span
// [−4, 4] so k3's output clamp (at x < −2.4) is crossed too.
func TestKLPenaltyGradientFiniteDifference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	b := randomBatch(rng, 10, 8)
	n := b.NumTokens()
	ref := normals(rng, n, -2, 0.5)
	logp := make([]float64, n)
	for i := range logp {
		logp[i] = ref[i] - 4 + 8*rng.Float64()
	}
	for _, e := range []KLEstimator{KLK1, KLAbs, KLK2, KLK3} {
		for _, agg := range allAggs() {
			cfg := KLConfig{Estimator: e, Coef: 0.05, Agg: agg}
			r, err := KLPenalty(logp, ref, b, cfg)
			require.NoError(t, err)
			fdCheck(t, logp, r.DLogp, func(x []float64) float64 {
				r, err := KLPenalty(x, ref, b, cfg)
				require.NoError(t, err)
				return r.Loss
			}, 1e-6, 1e-6)
		}
	}
}

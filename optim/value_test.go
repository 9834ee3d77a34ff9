package optim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ε_v = 0.5, token-mean over 3 agent tokens:
//
//	t0: v = 1, old = 0.8, R = 2:   v̄ = clip(1, 0.3, 1.3) = 1; (v−R)² = (v̄−R)² = 1 (tie) → 1, ∂/∂v = 2(v−R) = −2
//	t1: v = 2, old = 1,   R = 0:   v̄ = 1.5; 4 vs 2.25 → 4 (unclipped),  ∂/∂v = 2·2 = 4
//	t2: v = 0, old = 1,   R = 0.2: v̄ = 0.5; 0.04 vs 0.09 → 0.09 (clipped), ∂/∂v = 0
//
//	Loss = ½ (1 + 4 + 0.09)/3 = 0.848333…;  ∂Loss/∂v = ½·(1/3)·(−2, 4, 0) = (−1/3, 2/3, 0)
//	ClipFrac = 1/3
func TestValueLossHandValues(t *testing.T) {
	b := Packed{Offsets: []int32{0, 4}, Mask: []uint8{1, 1, 0, 1}}
	v := []float64{1, 2, 7, 0}
	old := []float64{0.8, 1, 7, 1}
	ret := []float64{2, 0, math.Inf(1), 0.2}
	r, err := ValueLoss(v, old, ret, b, ValueConfig{ClipValue: 0.5, Agg: Agg{Mode: TokenMean}})
	require.NoError(t, err)
	assert.InDelta(t, 0.5*5.09/3, r.Loss, 1e-12)
	assert.InDeltaSlice(t, []float64{-1.0 / 3, 2.0 / 3, 0, 0}, r.DValue, 1e-12)
	assert.InDelta(t, 1.0/3, r.ClipFrac, 1e-8)

	// Clipping off (ε_v = +Inf): t2 is scored unclipped, 0.04 with ∂ = 2·(−0.2).
	r, err = ValueLoss(v, old, ret, b, ValueConfig{ClipValue: math.Inf(1), Agg: Agg{Mode: TokenMean}})
	require.NoError(t, err)
	assert.InDelta(t, 0.5*5.04/3, r.Loss, 1e-12)
	assert.InDelta(t, 0.5*(-0.4)/3, r.DValue[3], 1e-12)
	assert.Zero(t, r.ClipFrac)

	_, err = ValueLoss(v, old, ret, b, ValueConfig{ClipValue: -1, Agg: Agg{Mode: TokenMean}})
	assert.ErrorContains(t, err, "ClipValue")
	_, err = ValueLoss(v, old, ret[:2], b, ValueConfig{ClipValue: 1, Agg: Agg{Mode: TokenMean}})
	assert.ErrorContains(t, err, "returns")
}

func TestValueLossGradientFiniteDifference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	b := randomBatch(rng, 12, 8)
	n := b.NumTokens()
	old := normals(rng, n, 0, 1)
	ret := normals(rng, n, 0, 1)
	v := make([]float64, n)
	for i := range v {
		v[i] = old[i] + 0.4*rng.NormFloat64() // a fair share beyond ε_v = 0.2
	}
	for _, agg := range allAggs() {
		cfg := ValueConfig{ClipValue: 0.2, Agg: agg}
		r, err := ValueLoss(v, old, ret, b, cfg)
		require.NoError(t, err)
		assert.Greater(t, r.ClipFrac, 0.05)
		fdCheck(t, v, r.DValue, func(x []float64) float64 {
			r, err := ValueLoss(x, old, ret, b, cfg)
			require.NoError(t, err)
			return r.Loss
		}, 1e-6, 1e-6)
	}
}

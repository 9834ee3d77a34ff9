package optim

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ent = (1, 2, 3) on agent tokens, coef 0.01, token-mean:
// H = 6/3 = 2, Loss = −0.01·2 = −0.02, ∂Loss/∂ent_t = −0.01/3.
func TestEntropyBonusHandValues(t *testing.T) {
	b := Packed{Offsets: []int32{0, 4}, Mask: []uint8{1, 0, 1, 1}}
	r, err := EntropyBonus([]float64{1, 50, 2, 3}, b, 0.01, Agg{Mode: TokenMean})
	require.NoError(t, err)
	assert.InDelta(t, 2, r.Entropy, 1e-12)
	assert.InDelta(t, -0.02, r.Loss, 1e-12)
	assert.InDeltaSlice(t, []float64{-0.01 / 3, 0, -0.01 / 3, -0.01 / 3}, r.DEnt, 1e-15)

	_, err = EntropyBonus([]float64{1}, b, 0.01, Agg{Mode: TokenMean})
	assert.ErrorContains(t, err, "one per token")
}

func TestEntropyBonusGradientFiniteDifference(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	b := randomBatch(rng, 8, 6)
	ent := normals(rng, b.NumTokens(), 2, 0.5)
	for _, agg := range allAggs() {
		r, err := EntropyBonus(ent, b, 0.003, agg)
		require.NoError(t, err)
		fdCheck(t, ent, r.DEnt, func(x []float64) float64 {
			r, err := EntropyBonus(x, b, 0.003, agg)
			require.NoError(t, err)
			return r.Loss
		}, 1e-5, 1e-7)
	}
}

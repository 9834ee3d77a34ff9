package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSoftmaxRowsExported: SoftmaxRow against the formula in float64,
// SoftmaxGradRow in place bitwise as into another buffer, and bad sizes
// refused, for rows of 1 to 40 entries (the vector tails).
func TestSoftmaxRowsExported(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const scale = 0.25
	for n := 1; n <= 40; n++ {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(4 * rng.NormFloat64())
		}
		want := make([]float64, n)
		mx, sum := math.Inf(-1), 0.0
		for i, v := range x {
			want[i] = scale * float64(v)
			mx = math.Max(mx, want[i])
		}
		for i := range want {
			want[i] = math.Exp(want[i] - mx)
			sum += want[i]
		}
		p := make([]float32, n)
		require.NoError(t, SoftmaxRow(append([]float32(nil), x...), scale, p))
		for i := range p {
			assert.InDelta(t, want[i]/sum, p[i], 1e-6, "n %d, p[%d]", n, i)
		}
		dp := make([]float32, n)
		for i := range dp {
			dp[i] = float32(rng.NormFloat64())
		}
		da := make([]float32, n)
		require.NoError(t, SoftmaxGradRow(p, dp, scale, da))
		require.NoError(t, SoftmaxGradRow(p, dp, scale, dp))
		assert.Equal(t, da, dp, "n %d: in place", n)
	}
	assert.Error(t, SoftmaxRow(nil, 1, nil))
	assert.Error(t, SoftmaxRow(make([]float32, 3), 1, make([]float32, 2)))
	assert.Error(t, SoftmaxGradRow(make([]float32, 3), make([]float32, 2), 1, make([]float32, 3)))
}

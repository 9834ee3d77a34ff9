package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBiasKernelsMatchRefBitwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for _, c := range []struct{ n, d int }{{0, 8}, {1, 1}, {3, 8}, {5, 27}, {2368, 64}, {700, 192}, {9, 256}, {40, 12}, {2048, 60}, {1500, 136}, {333, 512}, {4, 0}} {
		t.Run(fmt.Sprintf("n=%d/d=%d", c.n, c.d), func(t *testing.T) {
			x, b := opsRandn(rng, c.n*c.d, 0, 1), opsRandn(rng, c.d, 0, 1)
			if c.n*c.d > 0 {
				x[0] = float32(math.NaN())
			}
			want, got := make([]float32, len(x)), make([]float32, len(x))
			require.NoError(t, AddRowBiasRef(x, b, want, c.n, c.d))
			require.NoError(t, AddRowBias(x, b, got, c.n, c.d))
			assert.Equal(t, fmt.Sprint(want), fmt.Sprint(got)) // NaN ≠ NaN: compare the text
			inPlace := append([]float32(nil), x...)
			require.NoError(t, AddRowBias(inPlace, b, inPlace, c.n, c.d))
			assert.Equal(t, fmt.Sprint(want), fmt.Sprint(inPlace))

			accW, accG := make([]float64, c.d), make([]float64, c.d)
			for j := range accW {
				accW[j], accG[j] = float64(j), float64(j) // sums are added to what is there
			}
			if len(x) > 0 {
				x[0] = 1
			}
			require.NoError(t, AddColumnSumsRef(x, c.n, c.d, accW))
			require.NoError(t, AddColumnSums(x, c.n, c.d, accG))
			assert.Equal(t, accW, accG)
		})
	}
}

func TestBiasKernelsRejectBadSizes(t *testing.T) {
	x := make([]float32, 16)
	assert.Error(t, AddRowBias(x, x[:8], x[:15], 2, 8))
	assert.Error(t, AddRowBias(x, x[:7], x, 2, 8))
	assert.Error(t, AddRowBias(x, x, x, -1, 8))
	assert.Error(t, AddColumnSums(x, 3, 8, make([]float64, 8)))
	assert.Error(t, AddColumnSums(x, 2, 8, make([]float64, 7)))
}

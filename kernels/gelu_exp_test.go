package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The forward that keeps e and the backward that reads it give GELUForward's
// and GELUBackward's bits under every kernel set, for lengths around the
// 8- and 16-lane blocks (the tails run in Go), long enough to be split,
// with the limits and NaN; e is the Go staging's exponential.
func TestGELUExpMatchesGELUBitwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	inf := float32(math.Inf(1))
	for _, set := range adamWSets() {
		withAdamWSet(set, func() {
			for _, n := range []int{1, 7, 8, 9, 16, 17, 24, 31, 4099, 1 << 17} {
				x, dy := opsRandn(rng, n, 0, 3), opsRandn(rng, n, 0, 1)
				copy(x, []float32{inf, -inf, float32(math.NaN()), 1e38, -1e38, math.MaxFloat32, -math.MaxFloat32, 0, -0.75, 20, -20})
				y, dx := make([]float32, n), make([]float32, n)
				require.NoError(t, GELUForward(x, y))
				require.NoError(t, GELUBackward(x, dy, dx))
				y2, e, dx2 := make([]float32, n), make([]float32, n), make([]float32, n)
				require.NoError(t, GELUForwardExp(x, y2, e))
				require.NoError(t, GELUBackwardExp(x, e, dy, dx2))
				want := geluExps(x, make([]float32, n))
				// NaN ≠ NaN: compare the text.
				assert.Equal(t, fmt.Sprint(y), fmt.Sprint(y2), "%s n=%d: y", set, n)
				assert.Equal(t, fmt.Sprint(want), fmt.Sprint(e), "%s n=%d: e", set, n)
				assert.Equal(t, fmt.Sprint(dx), fmt.Sprint(dx2), "%s n=%d: dx", set, n)
			}
		})
	}
}

func TestGELUExpRejectsLengthMismatch(t *testing.T) {
	x := make([]float32, 4)
	assert.Error(t, GELUForwardExp(x, make([]float32, 4), make([]float32, 3)))
	assert.Error(t, GELUForwardExp(x, make([]float32, 3), make([]float32, 4)))
	assert.Error(t, GELUBackwardExp(x, make([]float32, 3), x, make([]float32, 4)))
	assert.Error(t, GELUBackwardExp(x, x, make([]float32, 3), make([]float32, 4)))
}

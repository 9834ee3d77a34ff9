package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// elementwiseValues are n values mixing random ones with ±0, ±Inf, NaN,
// subnormals and extremes, where the lanes could differ if any did.
func elementwiseValues(rng *rand.Rand, n int) []float32 {
	special := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.NaN()), 1e-45, -3e-39, math.MaxFloat32, -math.MaxFloat32, 1}
	x := make([]float32, n)
	for i := range x {
		if rng.IntN(4) == 0 {
			x[i] = special[rng.IntN(len(special))]
		} else {
			x[i] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4)))
		}
	}
	return x
}

func TestElementwiseMatchesRefBitwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	for _, avx2 := range productPaths() {
		for op := ElementwiseAdd; op <= ElementwiseDiv; op++ {
			for _, n := range []int{0, 1, 7, 8, 9, 16, 31, 64, 1001} {
				name := fmt.Sprintf("avx2=%v op=%d n=%d", avx2, op, n)
				x, y := elementwiseValues(rng, n), elementwiseValues(rng, n)
				want := make([]float32, n)
				require.NoError(t, ElementwiseRef(op, x, y, want))
				got := elementwiseValues(rng, n) // overwritten
				inX, inY := append([]float32(nil), x...), append([]float32(nil), y...)
				withProducts(avx2, func() {
					require.NoError(t, Elementwise(op, x, y, got))
					require.NoError(t, Elementwise(op, inX, y, inX)) // z = x
					require.NoError(t, Elementwise(op, x, inY, inY)) // z = y
				})
				assert.Equal(t, float32Bits(want), float32Bits(got), name)
				assert.Equal(t, float32Bits(want), float32Bits(inX), name+" z=x")
				assert.Equal(t, float32Bits(want), float32Bits(inY), name+" z=y")
			}
		}
	}
}

func TestElementwiseRefusesBadArguments(t *testing.T) {
	x := make([]float32, 8)
	assert.Error(t, Elementwise(ElementwiseAdd, x, x[:7], x))
	assert.Error(t, Elementwise(ElementwiseAdd, x[:7], x, x))
	assert.Error(t, Elementwise(ElementwiseDiv+1, x, x, x))
	assert.Error(t, ElementwiseRef(-1, x, x, x))
	assert.NoError(t, Elementwise(ElementwiseMul, nil, nil, nil))
}

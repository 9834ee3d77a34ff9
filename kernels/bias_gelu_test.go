package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The fused bias and GELU are the unfused kernels bitwise, under every
// kernel set and thread count, for widths with and without an 8-lane tail
// and wider than a column group, in place too.
func TestBiasGELUMatchesUnfusedBitwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	shapes := []struct{ n, d int }{{0, 8}, {1, 1}, {3, 8}, {5, 27}, {2048, 256}, {700, 192}, {9, 136}, {40, 12}, {333, 512}, {17, 300}, {4, 0}}
	for _, set := range adamWSets() {
		for _, procs := range []int{1, 2} {
			for _, c := range shapes {
				name := fmt.Sprintf("%s procs=%d n=%d d=%d", set, procs, c.n, c.d)
				x, b, dy := opsRandn(rng, c.n*c.d, 0, 2), opsRandn(rng, c.d, 0, 1), opsRandn(rng, c.n*c.d, 0, 1)
				if len(x) > 2 {
					x[1], x[2] = float32(math.Inf(-1)), float32(math.NaN())
				}
				prev := runtime.GOMAXPROCS(procs)
				withAdamWSet(set, func() {
					z, want := make([]float32, len(x)), make([]float32, len(x))
					require.NoError(t, AddRowBias(x, b, z, c.n, c.d))
					require.NoError(t, GELUForward(z, want))
					got := make([]float32, len(x))
					require.NoError(t, BiasGELUForward(x, b, got, c.n, c.d))
					assert.Equal(t, fmt.Sprint(want), fmt.Sprint(got), "forward %s", name) // NaN ≠ NaN: compare the text
					inPlace := append([]float32(nil), x...)
					require.NoError(t, BiasGELUForward(inPlace, b, inPlace, c.n, c.d))
					assert.Equal(t, fmt.Sprint(want), fmt.Sprint(inPlace), "forward in place %s", name)

					dzWant, dzGot := make([]float32, len(x)), make([]float32, len(x))
					accWant, accGot := make([]float64, c.d), make([]float64, c.d)
					for j := range accWant {
						accWant[j], accGot[j] = float64(j), float64(j) // sums are added to what is there
					}
					require.NoError(t, GELUBackward(z, dy, dzWant))
					require.NoError(t, AddColumnSums(dzWant, c.n, c.d, accWant))
					require.NoError(t, BiasGELUBackward(x, b, dy, dzGot, c.n, c.d, accGot))
					assert.Equal(t, fmt.Sprint(dzWant), fmt.Sprint(dzGot), "backward dz %s", name)
					assert.Equal(t, fmt.Sprint(accWant), fmt.Sprint(accGot), "backward sums %s", name)
				})
				runtime.GOMAXPROCS(prev)
			}
		}
	}
}

func TestBiasGELURejectsBadSizes(t *testing.T) {
	x := make([]float32, 16)
	acc := make([]float64, 8)
	assert.Error(t, BiasGELUForward(x, x[:8], x[:15], 2, 8))
	assert.Error(t, BiasGELUForward(x, x[:7], x, 2, 8))
	assert.Error(t, BiasGELUForward(x, x[:8], x, -1, 8))
	assert.Error(t, BiasGELUBackward(x, x[:8], x[:15], x, 2, 8, acc))
	assert.Error(t, BiasGELUBackward(x, x[:8], x, x[:15], 2, 8, acc))
	assert.Error(t, BiasGELUBackward(x, x[:8], x, x, 2, 8, acc[:7]))
	assert.Error(t, BiasGELUBackward(x[:15], x[:8], x, x, 2, 8, acc))
}

package kernels

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSgemmColumnSplitChoice(t *testing.T) {
	assert.Zero(t, sgemmColumnSplit(2048, 256, 64, 2), "one K panel: the row split")
	assert.Zero(t, sgemmColumnSplit(192, 64, 2048, 1), "one goroutine")
	assert.Zero(t, sgemmColumnSplit(4, 64, 2048, 2), "fewer rows than a sliver")
	assert.Zero(t, sgemmColumnSplit(192, 16, 2048, 2), "one sliver for two goroutines")
	assert.Equal(t, sgemmNR, sgemmColumnSplit(192, 48, 2048, 2), "three slivers: one each")
	assert.Equal(t, 2*sgemmNR, sgemmColumnSplit(192, 64, 2048, 2), "four slivers: pairs")
}

func TestSgemmColumnSplitBitwise(t *testing.T) {
	// The column split gives each goroutine whole columns over every K
	// panel: the same sums in the same order as one goroutine's row
	// blocks, for every kernel set, layout, α and β, and edge.
	rng := rand.New(rand.NewPCG(21, 22))
	for name, kern := range sgemmTestSets() {
		for _, tc := range []sgemmCase{
			{m: 192, n: 64, k: 2*sgemmKC + 300, transA: true, alpha: 1, beta: 0}, // a weight gradient, swapped
			{m: 64, n: 192, k: 3 * sgemmKC, transA: true, alpha: 1, beta: 1},
			{m: 301, n: 77, k: 300, alpha: 0.5, beta: 0.25, pad: 3},
			{m: 6, n: 200, k: sgemmKC + 1, transB: true, alpha: -1, beta: 0},
			{m: 145, n: sgemmNC + 40, k: sgemmKC + 7, transA: true, transB: true, alpha: 1, beta: 1, pad: 1},
		} {
			o := newSgemmOperands(rng, tc)
			want := append([]float32(nil), o.c...)
			require.NoError(t, sgemmWith(kern, 1, tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, o.a, o.lda, o.b, o.ldb, tc.beta, want, o.ldc))
			for _, w := range []int{2, 3, 4} {
				require.NotZero(t, sgemmColumnSplit(tc.m, tc.n, tc.k, w), "%v workers=%d takes the column split", tc, w)
				got := append([]float32(nil), o.c...)
				require.NoError(t, sgemmWith(kern, w, tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, o.a, o.lda, o.b, o.ldb, tc.beta, got, o.ldc))
				assert.Equal(t, float32Bits(want), float32Bits(got), "%s %v workers=%d", name, tc, w)
			}
		}
	}
}

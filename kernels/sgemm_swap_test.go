package kernels

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSgemmSwappedMatchesDirectBitwise(t *testing.T) {
	// The transposed route gives every element of C the bits of the
	// direct blocked product, on every kernel set and split, for the
	// scalars it takes (α = 1, β = 0 or 1), and leaves C's padding alone.
	rng := rand.New(rand.NewPCG(81, 82))
	for name, kern := range sgemmTestSets() {
		for _, tc := range []sgemmCase{
			{m: 64, n: 256, k: 2368, transA: true, alpha: 1, beta: 0},
			{m: 64, n: 192, k: 600, transA: true, alpha: 1, beta: 1, pad: 3},
			{m: 13, n: 77, k: 3*sgemmKC + 5, transA: true, alpha: 1, beta: 1, pad: 1},
			{m: 9, n: 8, k: 40, transA: true, alpha: 1, beta: 0},
			{m: 30, n: 100, k: 257, transA: true, alpha: 1, beta: 1},
		} {
			o := newSgemmOperands(rng, tc)
			g := sgemmArgs{transA: tc.transA, m: tc.m, n: tc.n, k: tc.k, alpha: tc.alpha, beta: tc.beta,
				a: o.a, lda: o.lda, b: o.b, ldb: o.ldb, ldc: o.ldc}
			for _, w := range []int{1, 2, 3} {
				want := append([]float32(nil), o.c...)
				got := append([]float32(nil), o.c...)
				d, s := g, g
				d.c, s.c = want, got
				sgemmBlocked(d, kern, w)
				sgemmSwapped(s, kern, w)
				assert.Equal(t, float32Bits(want), float32Bits(got), "%s %v workers=%d", name, tc, w)
			}
		}
	}
}

func TestSgemmTakesTheSwapForWeightGradients(t *testing.T) {
	assert.True(t, sgemmSwapPays(&sgemmArgs{transA: true, m: 64, n: 256, k: 2368, alpha: 1}))
	assert.True(t, sgemmSwapPays(&sgemmArgs{transA: true, m: 64, n: 192, k: 2368, alpha: 1, beta: 1}))
	assert.False(t, sgemmSwapPays(&sgemmArgs{transA: true, m: 64, n: 64, k: 2368, alpha: 1}))
	assert.False(t, sgemmSwapPays(&sgemmArgs{transA: true, m: 256, n: 64, k: 2368, alpha: 1}))
	assert.False(t, sgemmSwapPays(&sgemmArgs{transA: true, m: 64, n: 256, k: sgemmKC, alpha: 1}))
	assert.False(t, sgemmSwapPays(&sgemmArgs{transA: true, transB: true, m: 64, n: 256, k: 2368, alpha: 1}))
	assert.False(t, sgemmSwapPays(&sgemmArgs{m: 64, n: 256, k: 2368}))
	assert.False(t, sgemmSwapPays(&sgemmArgs{transA: true, m: 64, n: 256, k: 2368, alpha: 0.5}))
	assert.False(t, sgemmSwapPays(&sgemmArgs{transA: true, m: 64, n: 256, k: 2368, alpha: 1, beta: 0.5}))
	// And through Sgemm, against the reference.
	rng := rand.New(rand.NewPCG(83, 84))
	tc := sgemmCase{m: 20, n: 90, k: 700, transA: true, alpha: 1, beta: 1, pad: 2}
	for _, kern := range sgemmTestSets() {
		checkSgemmAgainstRef(t, rng, tc, kern, 2)
	}
	require.True(t, sgemmSwapPays(&sgemmArgs{transA: tc.transA, m: tc.m, n: tc.n, k: tc.k, alpha: tc.alpha, beta: tc.beta}))
}

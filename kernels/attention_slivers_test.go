package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// toSlivers (8×8 AVX2 block transposes where built) writes the same bits
// as the scalar loop, for lengths around the blocks, head sizes 8..32,
// special values, and leaves the rest of dst as it was.
func TestToSliversMatchesScalar(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	specials := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.Copysign(0, -1)), 1e-42}
	for _, hd := range []int{8, 16, 24, 32} {
		for _, T := range []int{1, 7, 8, 9, 15, 16, 17, 24, 31, 33, 64, 100, 128} {
			ld := 3*hd + 5
			src := make([]float32, T*ld)
			for i := range src {
				src[i] = rng.Float32()*2 - 1
				if rng.IntN(50) == 0 {
					src[i] = specials[rng.IntN(len(specials))]
				}
			}
			n := ceilDiv(T, sgemmNR) * sgemmNR * hd
			got, want := make([]float32, n), make([]float32, n)
			for i := range got {
				got[i], want[i] = -7, -7
			}
			toSlivers(got, src, T, hd, ld)
			for s := range T {
				for i := range hd {
					want[(s/sgemmNR)*hd*sgemmNR+i*sgemmNR+s%sgemmNR] = src[s*ld+i]
				}
			}
			for i := range got {
				require.Equal(t, math.Float32bits(want[i]), math.Float32bits(got[i]), "hd %d T %d at %d", hd, T, i)
			}
		}
	}
}

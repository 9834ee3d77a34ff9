package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

// productPaths lists the implementations of the attention products this
// CPU can run: the portable Go one always, the AVX2 one where supported.
// with runs f once per path, restoring the start-up choice after.
func productPaths() []bool {
	if hasAVX2FMA && asmBuilt {
		return []bool{false, true}
	}
	return []bool{false}
}

func withProducts(avx2 bool, f func()) {
	prev := useAVX2
	useAVX2 = avx2
	defer func() { useAVX2 = prev }()
	f()
}

// The two products against plain float64 loops, for row lengths and
// counts that exercise every block size and remainder of the assembly.
func TestAttentionProductsMatchPlainLoops(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	for _, avx2 := range productPaths() {
		for _, hdp := range []int{8, 16, 24, 40, 64, 72} {
			for _, n := range []int{8, 16, 32, 40, 56, 64, 72, 264} {
				name := fmt.Sprintf("avx2=%v hdp=%d n=%d", avx2, hdp, n)
				ld := n + 8
				x := opsRandn(rng, hdp, 0, 1)
				at := opsRandn(rng, hdp*ld, 0, 1)
				p := opsRandn(rng, n, 0, 1)
				a := opsRandn(rng, n*hdp, 0, 1)

				wantT := make([]float32, n)
				for s := range n {
					acc := 0.0
					for i := range hdp {
						acc += float64(x[i]) * float64(at[i*ld+s])
					}
					wantT[s] = float32(acc)
				}
				wantN := make([]float32, hdp)
				for j := range hdp {
					acc := 0.0
					for s := range n {
						acc += float64(p[s]) * float64(a[s*hdp+j])
					}
					wantN[j] = float32(acc)
				}

				gotT, gotN := make([]float32, n+8), make([]float32, hdp)
				gotT[n] = 42 // beyond n: must not be written
				withProducts(avx2, func() {
					gemvT(x, at, ld, n, gotT)
					gemvN(p, a, n, gotN)
				})
				assertClose32(t, wantT, gotT[:n], 1e-5, 1e-5, name+" gemvT")
				assertClose32(t, []float32{42}, gotT[n:n+1], 0, 0, name+" gemvT bound")
				assertClose32(t, wantN, gotN, 1e-5, 1e-5, name+" gemvN")
			}
		}
	}
}

// gemvNAVX2 runs its columns after the blocks of 32 two 8-column blocks
// at a time while 16 are left: each column must get the sums the
// one-block loop gives it, which a matrix of that block's 8 columns alone
// (every column after the 32-blocks goes through it) takes.
func TestGemvNAVX2PairedBlocksBitwise(t *testing.T) {
	if !hasAVX2FMA || !asmBuilt {
		t.Skip("no AVX2 assembly")
	}
	rng := rand.New(rand.NewPCG(63, 64))
	for _, hdp := range []int{16, 24, 40, 48, 56} {
		for _, n := range []int{0, 1, 3, 4, 5, 8, 13, 64, 149} {
			p := opsRandn(rng, n, 0, 1)
			a := opsRandn(rng, n*hdp, 0, 1)
			got := make([]float32, hdp)
			gemvNAVX2(p, a, n, got)
			for j0 := hdp / 32 * 32; j0 < hdp; j0 += 8 {
				blk := make([]float32, n*8)
				for s := range n {
					copy(blk[s*8:][:8], a[s*hdp+j0:][:8])
				}
				want := make([]float32, 8)
				gemvNAVX2(p, blk, n, want)
				assert.Equal(t, want, got[j0:j0+8], "hdp=%d n=%d columns %d..", hdp, n, j0)
			}
		}
	}
}

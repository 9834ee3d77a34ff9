package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"
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

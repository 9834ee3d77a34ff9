package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// The MLP activation of a model-like batch: 32·64 rows of 4·C for C = 64
// and 256. MB/s counts x in, y out (forward) and x, dy in, dx out (backward).
func BenchmarkGELU(b *testing.B) {
	for _, c := range []int{64, 256} {
		n := 32 * 64 * 4 * c
		rng := rand.New(rand.NewPCG(2, uint64(c)))
		x, dy := opsRandn(rng, n, 0, 2), opsRandn(rng, n, 0, 1)
		y, dx := make([]float32, n), make([]float32, n)
		for _, impl := range []struct {
			name string
			fwd  func(x, y []float32) error
			bwd  func(x, dy, dx []float32) error
		}{{"ref", GELUForwardRef, GELUBackwardRef}, {"fast", GELUForward, GELUBackward}} {
			b.Run(fmt.Sprintf("fwd/n%d/%s", n, impl.name), func(b *testing.B) {
				b.SetBytes(int64(8 * n))
				b.ReportAllocs()
				for b.Loop() {
					if err := impl.fwd(x, y); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(fmt.Sprintf("bwd/n%d/%s", n, impl.name), func(b *testing.B) {
				b.SetBytes(int64(12 * n))
				b.ReportAllocs()
				for b.Loop() {
					if err := impl.bwd(x, dy, dx); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

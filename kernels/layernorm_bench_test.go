package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// Model-like sizes: N = batch·seq = 32·64 rows of C = 64 or 256.
// MB/s counts the bytes a pass must move: forward x in, y out (8·N·C);
// backward x, dy in, dx out (12·N·C); dgamma/dbeta x, dy in (8·N·C).
func BenchmarkLayerNorm(b *testing.B) {
	for _, c := range []int{64, 256} {
		n := 32 * 64
		rng := rand.New(rand.NewPCG(1, uint64(c)))
		x, dy := opsRandn(rng, n*c, 0, 1), opsRandn(rng, n*c, 0, 1)
		gamma, beta := opsRandn(rng, c, 1, 0.1), opsRandn(rng, c, 0, 0.1)
		y, dx, dg, db := make([]float32, n*c), make([]float32, n*c), make([]float32, c), make([]float32, c)
		mean, rstd := make([]float64, n), make([]float64, n)
		for _, impl := range []struct {
			name string
			fwd  func([]float32, int, int, []float32, []float32, float64, []float32, []float64, []float64) error
			bwd  func([]float32, int, int, []float32, []float64, []float64, []float32, []float32, []float32, []float32) error
		}{{"ref", LayerNormForwardRef, LayerNormBackwardRef}, {"fast", LayerNormForward, LayerNormBackward}} {
			b.Run(fmt.Sprintf("fwd/N%d_C%d/%s", n, c, impl.name), func(b *testing.B) {
				b.SetBytes(int64(8 * n * c))
				b.ReportAllocs()
				for b.Loop() {
					if err := impl.fwd(x, n, c, gamma, beta, 1e-5, y, mean, rstd); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(fmt.Sprintf("bwd_dx/N%d_C%d/%s", n, c, impl.name), func(b *testing.B) {
				b.SetBytes(int64(12 * n * c))
				b.ReportAllocs()
				for b.Loop() {
					if err := impl.bwd(x, n, c, gamma, mean, rstd, dy, dx, nil, nil); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(fmt.Sprintf("bwd_dgamma_dbeta/N%d_C%d/%s", n, c, impl.name), func(b *testing.B) {
				b.SetBytes(int64(8 * n * c))
				b.ReportAllocs()
				for b.Loop() {
					if err := impl.bwd(x, n, c, gamma, mean, rstd, dy, nil, dg, db); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkElementwise is the residual add of the small preset at 2048
// tokens (2048×64 values, in L2) and of the MLP's width (2048×256):
// Elementwise (AVX2 where the CPU has it) against the plain loop.
func BenchmarkElementwise(b *testing.B) {
	rng := rand.New(rand.NewPCG(73, 74))
	for _, n := range []int{2048 * 64, 2048 * 256} {
		x, y := opsRandn(rng, n, 0, 1), opsRandn(rng, n, 0, 1)
		z := make([]float32, n)
		for _, im := range []struct {
			name string
			fn   func(ElementwiseOp, []float32, []float32, []float32) error
		}{{"fast", Elementwise}, {"ref", ElementwiseRef}} {
			b.Run(fmt.Sprintf("add/n%d/%s", n, im.name), func(b *testing.B) {
				for b.Loop() {
					if err := im.fn(ElementwiseAdd, x, y, z); err != nil {
						b.Fatal(err)
					}
				}
				b.SetBytes(int64(12 * n))
			})
		}
	}
}

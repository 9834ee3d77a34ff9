package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// The MLP's first bias and GELU at the small and base presets' training
// shapes (B·T 2048 rows of 256, 4096 of 512), fused against the unfused
// kernels. MB/s counts x in, y out (forward) and x, dy in, dz out
// (backward) for both, so the rates compare.
//
//	GOMAXPROCS=1 go test ./kernels -run '^$' -bench 'BiasGELU' -count 5
func BenchmarkBiasGELU(b *testing.B) {
	for _, c := range []struct{ n, d int }{{2048, 256}, {4096, 512}} {
		rng := rand.New(rand.NewPCG(4, uint64(c.d)))
		x, bias, dy := opsRandn(rng, c.n*c.d, 0, 2), opsRandn(rng, c.d, 0, 1), opsRandn(rng, c.n*c.d, 0, 1)
		z, y := make([]float32, len(x)), make([]float32, len(x))
		if err := AddRowBias(x, bias, z, c.n, c.d); err != nil {
			b.Fatal(err)
		}
		acc := make([]float64, c.d)
		shape := fmt.Sprintf("n%d/d%d", c.n, c.d)
		run := func(name string, bytes int, f func() error) {
			b.Run(shape+"/"+name, func(b *testing.B) {
				b.SetBytes(int64(bytes * c.n * c.d))
				b.ReportAllocs()
				for b.Loop() {
					if err := f(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		run("fwd/unfused", 8, func() error {
			if err := AddRowBias(x, bias, z, c.n, c.d); err != nil {
				return err
			}
			return GELUForward(z, y)
		})
		run("fwd/fused", 8, func() error { return BiasGELUForward(x, bias, y, c.n, c.d) })
		run("bwd/unfused", 12, func() error { // z = x + b is kept from the forward, as in the unfused graph
			if err := GELUBackward(z, dy, y); err != nil {
				return err
			}
			return AddColumnSums(y, c.n, c.d, acc)
		})
		run("bwd/fused", 12, func() error { return BiasGELUBackward(x, bias, dy, y, c.n, c.d, acc) })
	}
}

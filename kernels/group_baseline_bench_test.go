package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkGroupBaseline: groups of 8 rollouts, 0/1 scores; MB/s over the
// per-token traffic (read mask 1 B, write advantage 4 B).
func BenchmarkGroupBaseline(b *testing.B) {
	for _, s := range benchSizes {
		b.Run(fmt.Sprintf("%dx%d", s.nb, s.L), func(b *testing.B) {
			r := rand.New(rand.NewPCG(23, 24))
			p, _ := regularBatch(r, s.nb, s.L)
			scores := make([]float32, s.nb)
			groups := make([]int32, s.nb)
			for i := range scores {
				scores[i] = float32(r.IntN(2))
				groups[i] = int32(i / 8)
			}
			out := make([]float32, p.NumTokens())
			b.SetBytes(int64(p.NumTokens()) * 5)
			b.ReportAllocs()
			for b.Loop() {
				if err := GroupBaseline(p, scores, groups, GRPONorm, out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

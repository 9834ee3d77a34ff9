package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkMarginCorrection adds λ·u into an advantage buffer (the trainers' use) on the
// regularBatch layout (7 steps of 16 agent tokens per trajectory, critiques
// uniform in {−1, 0, +1}); MB/s over the per-token traffic (read mask 1 B,
// read and write the advantage 8 B).
func BenchmarkMarginCorrection(b *testing.B) {
	for _, mode := range allModes {
		for _, s := range benchSizes {
			b.Run(fmt.Sprintf("%v/%dx%d", mode, s.nb, s.L), func(b *testing.B) {
				r := rand.New(rand.NewPCG(25, 26))
				p, st := regularBatch(r, s.nb, s.L)
				adv := randomFloats(r, p.NumTokens())
				b.SetBytes(int64(p.NumTokens()) * 9)
				b.ReportAllocs()
				for b.Loop() {
					if err := MarginCorrection(p, st, mode, 0.2, adv, true); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

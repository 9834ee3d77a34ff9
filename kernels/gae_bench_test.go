package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchSizes are B trajectories of L tokens: a small PPO batch and a large
// GRPO one (B = 512 is 64 prompts × 8 rollouts).
var benchSizes = []struct{ nb, L int }{{64, 256}, {512, 256}}

// gaeBenchInputs is a regularBatch with outcome rewards on each trajectory's
// last agent token and random values.
func gaeBenchInputs(nb, L int) (Packed, []float32, []float32) {
	r := rand.New(rand.NewPCG(21, 22))
	p, _ := regularBatch(r, nb, L)
	rewards := make([]float32, p.NumTokens())
	for b := range nb {
		lo, hi := p.Span(b)
		for t := hi - 1; t >= lo; t-- {
			if p.Mask[t] == 1 {
				rewards[t] = float32(r.IntN(2))
				break
			}
		}
	}
	return p, rewards, randomFloats(r, p.NumTokens())
}

// BenchmarkGAE reports MB/s over the per-token traffic the kernel cannot
// avoid: read reward, value, mask (9 B), write advantage and return (8 B).
func BenchmarkGAE(b *testing.B) {
	for _, s := range benchSizes {
		b.Run(fmt.Sprintf("%dx%d", s.nb, s.L), func(b *testing.B) {
			p, rewards, values := gaeBenchInputs(s.nb, s.L)
			adv, ret := make([]float32, p.NumTokens()), make([]float32, p.NumTokens())
			b.SetBytes(int64(p.NumTokens()) * 17)
			b.ReportAllocs()
			for b.Loop() {
				if err := GAE(p, rewards, values, 1, 1, adv, ret); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMaskedWhiten: read x and mask, write x (9 B per token).
func BenchmarkMaskedWhiten(b *testing.B) {
	for _, s := range benchSizes {
		b.Run(fmt.Sprintf("%dx%d", s.nb, s.L), func(b *testing.B) {
			p, _, values := gaeBenchInputs(s.nb, s.L)
			x := make([]float32, len(values))
			b.SetBytes(int64(p.NumTokens()) * 9)
			b.ReportAllocs()
			for b.Loop() {
				copy(x, values)
				if err := MaskedWhiten(p, x); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

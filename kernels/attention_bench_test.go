package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// attentionFlops counts the multiply-adds (as 2 flops) of the causal
// forward: per (b, h) and each of the T(T+1)/2 pairs s ≤ t, q·k and p·v of
// head size hd each. The backward does twice as many (v·dout, dq, dk, dv).
func attentionFlops(sh AttentionShape) float64 {
	pairs := float64(sh.Batch*sh.Heads) * float64(sh.SeqLen*(sh.SeqLen+1)/2)
	return pairs * 4 * float64(sh.HeadSize())
}

// Model-like sizes: B = 32, H = 4, T = 64 or 256, C = 64 or 256; the fast
// path with the portable Go products and (where the CPU has it) AVX2. The
// reference runs only at the smallest size (it is float64 and serial).
func BenchmarkAttention(b *testing.B) {
	for _, sh := range []AttentionShape{
		{Batch: 32, SeqLen: 64, Channels: 64, Heads: 4},
		{Batch: 32, SeqLen: 64, Channels: 256, Heads: 4},
		{Batch: 32, SeqLen: 256, Channels: 64, Heads: 4},
		{Batch: 32, SeqLen: 256, Channels: 256, Heads: 4},
	} {
		var qkv, dout, out, att, dqkv []float32
		setup := func() { // only for the sizes a -bench filter selects
			if qkv == nil {
				rng := rand.New(rand.NewPCG(3, uint64(sh.SeqLen*sh.Channels)))
				qkv, dout = opsRandn(rng, sh.QKVLen(), 0, 1), opsRandn(rng, sh.OutLen(), 0, 1)
				out, att, dqkv = make([]float32, sh.OutLen()), make([]float32, sh.AttLen()), make([]float32, sh.QKVLen())
				if err := AttentionForward(qkv, sh, out, att); err != nil {
					panic(err)
				}
			}
		}
		type impl struct {
			name string
			fns  attnFns
			avx2 bool
		}
		var impls []impl
		for _, avx2 := range productPaths() {
			name := "fast_go"
			if avx2 {
				name = "fast_avx2"
			}
			impls = append(impls, impl{name, attnImpls["fast"], avx2})
		}
		if sh.SeqLen == 64 && sh.Channels == 64 {
			impls = append(impls, impl{"ref", attnImpls["ref"], false})
		}
		size := fmt.Sprintf("B%d_T%d_C%d_H%d", sh.Batch, sh.SeqLen, sh.Channels, sh.Heads)
		for _, im := range impls {
			b.Run("fwd/"+size+"/"+im.name, func(b *testing.B) {
				setup()
				b.ReportAllocs()
				withProducts(im.avx2, func() {
					for b.Loop() {
						if err := im.fns.fwd(qkv, sh, out, att); err != nil {
							b.Fatal(err)
						}
					}
				})
				b.ReportMetric(attentionFlops(sh)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
			b.Run("bwd/"+size+"/"+im.name, func(b *testing.B) {
				setup()
				b.ReportAllocs()
				withProducts(im.avx2, func() {
					for b.Loop() {
						if err := im.fns.bwd(qkv, sh, att, dout, dqkv); err != nil {
							b.Fatal(err)
						}
					}
				})
				b.ReportMetric(2*attentionFlops(sh)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"arew/kernels"
)

// CausalSelfAttention forward + backward inside a gorgonia graph (plus the
// Σ w ⊙ out loss), B = 32, H = 4, T = 64 or 256, C = 64 or 256. GFLOP/s
// counts the attention's own work (3× the forward's multiply-adds).
func BenchmarkCausalSelfAttentionOp(b *testing.B) {
	for _, sh := range []kernels.AttentionShape{
		{Batch: 32, SeqLen: 64, Channels: 64, Heads: 4},
		{Batch: 32, SeqLen: 64, Channels: 256, Heads: 4},
		{Batch: 32, SeqLen: 256, Channels: 64, Heads: 4},
		{Batch: 32, SeqLen: 256, Channels: 256, Heads: 4},
	} {
		size := fmt.Sprintf("B%d_T%d_C%d_H%d", sh.Batch, sh.SeqLen, sh.Channels, sh.Heads)
		b.Run(size+"/loss_only", func(b *testing.B) { benchLossOnly(b, sh.Batch*sh.SeqLen, sh.Channels) })
		b.Run(size+"/op", func(b *testing.B) {
			rng := rand.New(rand.NewPCG(3, uint64(sh.SeqLen*sh.Channels)))
			pairs := float64(sh.Batch*sh.Heads) * float64(sh.SeqLen*(sh.SeqLen+1)/2)
			qkv := opsTensor(rng, 0, 1, sh.Batch*sh.SeqLen, 3*sh.Channels)
			benchOpGraph(b, []*tensor.Dense{qkv}, func(xs G.Nodes) (*G.Node, error) {
				return CausalSelfAttention(xs[0], sh.Batch, sh.SeqLen, sh.Heads)
			}, 3*pairs*4*float64(sh.HeadSize()))
		})
	}
}

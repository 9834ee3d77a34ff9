package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// LayerNorm forward + backward inside a gorgonia graph (plus the Σ w ⊙ y
// loss and its gradient, a HadamardProd and a Sum), N = 32·64, C = 64 and
// 256. Compare with BenchmarkLayerNorm in kernels for the op's overhead.
func BenchmarkLayerNormOp(b *testing.B) {
	for _, c := range []int{64, 256} {
		n := 32 * 64
		b.Run(fmt.Sprintf("N%d_C%d/loss_only", n, c), func(b *testing.B) { benchLossOnly(b, n, c) })
		b.Run(fmt.Sprintf("N%d_C%d/op", n, c), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, uint64(c)))
			inputs := []*tensor.Dense{opsTensor(rng, 0, 1, n, c), opsTensor(rng, 1, 0.1, c), opsTensor(rng, 0, 0.1, c)}
			b.SetBytes(int64(4 * 8 * n * c)) // x, y, dy, dx, w, loss terms: about 8 passes of N·C
			benchOpGraph(b, inputs, func(xs G.Nodes) (*G.Node, error) { return LayerNorm(xs[0], xs[1], xs[2], 1e-5) }, 0)
		})
	}
}

package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// GELU forward + backward inside a gorgonia graph (plus the Σ w ⊙ y loss),
// on the MLP activation of a model-like batch: 32·64 rows of 4·C.
func BenchmarkGELUOp(b *testing.B) {
	for _, c := range []int{64, 256} {
		n, m := 32*64, 4*c
		b.Run(fmt.Sprintf("N%d_M%d/loss_only", n, m), func(b *testing.B) { benchLossOnly(b, n, m) })
		b.Run(fmt.Sprintf("N%d_M%d/op", n, m), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(2, uint64(c)))
			b.SetBytes(int64(4 * 8 * n * m))
			benchOpGraph(b, []*tensor.Dense{opsTensor(rng, 0, 2, n, m)}, func(xs G.Nodes) (*G.Node, error) { return GELU(xs[0]) }, 0)
		})
	}
}

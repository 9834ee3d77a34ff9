package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// GELU at the small preset's MLP (B·T = 2048 rows of 4·64), the forward
// and backward as a training step runs them: "plain" recomputes the
// exponentials in the backward (GELUForward, GELUBackward), "exp" keeps
// them from the forward (GELUForwardExp, GELUBackwardExp).
//
//	GOMAXPROCS=1 go test ./kernels -run '^$' -bench 'GELUExp' -count 5
func BenchmarkGELUExp(b *testing.B) {
	const n = 2048 * 256
	rng := rand.New(rand.NewPCG(3, 4))
	x, dy := opsRandn(rng, n, 0, 2), opsRandn(rng, n, 0, 1)
	y, e, dx := make([]float32, n), make([]float32, n), make([]float32, n)
	run := func(name string, f func() error) {
		b.Run(fmt.Sprintf("n%d/%s", n, name), func(b *testing.B) {
			for b.Loop() {
				if err := f(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	run("fwd/plain", func() error { return GELUForward(x, y) })
	run("fwd/exp", func() error { return GELUForwardExp(x, y, e) })
	run("bwd/plain", func() error { return GELUBackward(x, dy, dx) })
	if err := GELUForwardExp(x, y, e); err != nil {
		b.Fatal(err)
	}
	run("bwd/exp", func() error { return GELUBackwardExp(x, e, dy, dx) })
}

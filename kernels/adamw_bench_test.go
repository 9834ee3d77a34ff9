package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// AdamWUpdate under each kernel set this machine runs, on a parameter that
// stays in L2 (64 Ki values: an MLP matrix of the small preset) and one
// that does not (1 Mi). MB/s counts value, grad, m, v in and value, m, v
// out (28 bytes per value).
//
//	GOMAXPROCS=1 go test ./kernels -run '^$' -bench 'AdamWUpdate' -count 5
func BenchmarkAdamWUpdate(b *testing.B) {
	s := adamWTestSteps[0]
	for _, n := range []int{1 << 16, 1 << 20} {
		// Nonzero gradients: repeated steps then keep the moments near g
		// and g² (a zero gradient would decay m into subnormals, which are
		// slow on every path and no training step's case).
		rng := rand.New(rand.NewPCG(3, uint64(n)))
		data, grad, m, v := opsRandn(rng, n, 0, 0.1), opsRandn(rng, n, 1e-2, 1e-3), make([]float32, n), make([]float32, n)
		for _, set := range adamWSets() {
			b.Run(fmt.Sprintf("n%d/%s", n, set), func(b *testing.B) {
				b.SetBytes(int64(28 * n))
				b.ReportAllocs()
				withAdamWSet(set, func() {
					for b.Loop() {
						if err := AdamWUpdate(s, data, grad, m, v); err != nil {
							b.Fatal(err)
						}
					}
				})
			})
		}
	}
}

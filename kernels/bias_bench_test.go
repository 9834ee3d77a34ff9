package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// AddRowBias at the small preset's linear layers (B·T 2048 rows of the
// width d): MB/s counts x read and y written.
//
//	GOMAXPROCS=1 go test ./kernels -run '^$' -bench 'AddRowBias' -count 5
func BenchmarkAddRowBias(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, d := range []int{64, 192, 256} {
		const n = 2048
		x, bias, y := opsRandn(rng, n*d, 0, 1), opsRandn(rng, d, 0, 1), make([]float32, n*d)
		b.Run(fmt.Sprintf("n%d/d%d", n, d), func(b *testing.B) {
			b.SetBytes(int64(8 * n * d))
			for b.Loop() {
				if err := AddRowBias(x, bias, y, n, d); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The triangular tile products give bitwise the full-square Sgemm
// products, for sizes that leave partial row tiles and column slivers, on
// every kernel set this machine runs.
func TestAttentionProductsMatchSgemm(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	kerns := []*sgemmKernelSet{sgemmGo}
	for _, k := range []*sgemmKernelSet{sgemmAVX2, sgemmAVX512} {
		if k != nil && hasAVX2FMA && (k != sgemmAVX512 || hasAVX512F) {
			kerns = append(kerns, k)
		}
	}
	for _, kern := range kerns {
		for _, c := range []struct{ T, hd, heads int }{{1, 8, 1}, {5, 16, 2}, {13, 2, 3}, {37, 16, 4}, {64, 24, 2}, {130, 32, 4}, {256, 16, 1}, {300, 8, 1}} {
			t.Run(fmt.Sprintf("%s/T%d_hd%d", kern.name, c.T, c.hd), func(t *testing.T) {
				T, C := c.T, c.hd*c.heads
				qkv := opsRandn(rng, T*3*C, 0, 1)
				dout := opsRandn(rng, T*C, 0, 1)
				w := newHeadWork(T, c.hd, true)
				for r := range T { // lower-triangular dA and P
					for s := 0; s <= r; s++ {
						w.dat[r*T+s], w.pt[r*T+s] = float32(rng.NormFloat64()), float32(rng.Float64())
					}
				}
				off := (c.heads - 1) * c.hd // the last head: its columns end the row
				w.loadBackward(qkv, dout, 0, C, off)
				got, want := opsRandn(rng, T*3*C, 0, 1), make([]float32, T*3*C)
				copy(want, got)
				w.products(kern, qkv, got, C, off)
				ld := 3 * C
				mustSgemm(kern, false, T, c.hd, T, w.dat, T, qkv[C+off:], ld, want[off:], ld)
				mustSgemm(kern, true, T, c.hd, T, w.dat, T, qkv[off:], ld, want[C+off:], ld)
				mustSgemm(kern, true, T, c.hd, T, w.pt, T, w.doFrom(0), w.doLd, want[2*C+off:], ld)
				assert.Equal(t, want, got)
			})
		}
	}
}

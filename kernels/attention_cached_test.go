package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cachedCase is a random query and cache of one head: hd real lanes padded
// to hdp, keys transposed with leading dimension ld, and NaN in every key
// lane past n (scratch lanes the kernel must never let through).
func cachedCase(rng *rand.Rand, hd, n, ld int) (q, kt, v []float32) {
	hdp := roundUp8(hd)
	q, kt, v = make([]float32, hdp), make([]float32, hdp*ld), make([]float32, n*hdp)
	for i := range hd {
		q[i] = float32(rng.NormFloat64())
		for u := range ld {
			kt[i*ld+u] = float32(math.NaN())
			if u < n {
				kt[i*ld+u] = float32(rng.NormFloat64())
			}
		}
		for u := range n {
			v[u*hdp+i] = float32(rng.NormFloat64())
		}
	}
	return q, kt, v
}

func TestCachedAttentionMatchesRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, impl := range []bool{true, false} {
		for _, c := range []struct{ hd, n, ld int }{
			{16, 1, 8}, {16, 7, 8}, {16, 8, 8}, {16, 9, 24}, {8, 33, 40}, {5, 12, 16}, {20, 170, 184}, {64, 100, 104},
		} {
			t.Run(fmt.Sprintf("avx2=%v/hd=%d/n=%d", impl && hasAVX2FMA, c.hd, c.n), func(t *testing.T) {
				if !impl {
					defer func(old bool) { useAVX2 = old }(useAVX2)
					useAVX2 = false
				}
				q, kt, v := cachedCase(rng, c.hd, c.n, c.ld)
				hdp := len(q)
				scale := float32(1 / math.Sqrt(float64(c.hd)))
				want, got := make([]float32, hdp), make([]float32, hdp)
				sc := make([]float32, roundUp8(c.n))
				require.NoError(t, CachedAttentionRef(q, kt, v, c.ld, c.n, scale, sc, want))
				require.NoError(t, CachedAttention(q, kt, v, c.ld, c.n, scale, sc, got))
				for j := range want {
					assert.InDelta(t, want[j], got[j], 2e-6*(1+math.Abs(float64(want[j]))), "lane %d", j)
				}
			})
		}
	}
}

func TestCachedAttentionRejectsBadSizes(t *testing.T) {
	q, kt, v := make([]float32, 16), make([]float32, 16*8), make([]float32, 8*16)
	sc, out := make([]float32, 8), make([]float32, 16)
	for name, call := range map[string]func() error{
		"q not a multiple of 8": func() error { return CachedAttention(q[:12], kt, v, 8, 4, 1, sc, out[:12]) },
		"n past ld":             func() error { return CachedAttention(q, kt, v, 8, 9, 1, sc, out) },
		"n zero":                func() error { return CachedAttention(q, kt, v, 8, 0, 1, sc, out) },
		"short scores":          func() error { return CachedAttention(q, kt, v, 8, 8, 1, sc[:4], out) },
		"short values":          func() error { return CachedAttention(q, kt, v[:16], 8, 2, 1, sc, out) },
	} {
		assert.Error(t, call(), name)
	}
}

// softmaxRow's assembly and Go loop agree on every tail length, on scores
// of ±1e4 (the max is subtracted first), and a NaN makes the row NaN.
func TestSoftmaxRowPathsAgree(t *testing.T) {
	if !hasAVX2FMA || !asmBuilt {
		t.Skip("no AVX2 here")
	}
	rng := rand.New(rand.NewPCG(9, 10))
	defer func(old bool) { useAVX2 = old }(useAVX2)
	for n := 1; n <= 41; n++ {
		for _, spread := range []float64{1, 1e4} {
			x := make([]float32, n)
			for i := range x {
				x[i] = float32(rng.NormFloat64() * spread)
			}
			got, want := make([]float32, n+8), make([]float32, n+8)
			for i := n; i < n+8; i++ {
				got[i], want[i] = 7, 7 // nothing past n is written
			}
			xa, xg := append([]float32(nil), x...), append([]float32(nil), x...)
			useAVX2 = true
			softmaxRow(xa, 0.25, got)
			useAVX2 = false
			softmaxRow(xg, 0.25, want)
			for i := range want {
				assert.InDelta(t, want[i], got[i], 1e-6*(1e-30+math.Abs(float64(want[i]))), "n=%d spread=%g lane %d", n, spread, i)
			}
		}
		x := make([]float32, n)
		x[rng.IntN(n)] = float32(math.NaN())
		p := make([]float32, n)
		useAVX2 = true
		softmaxRow(x, 1, p)
		for i := range p {
			assert.True(t, math.IsNaN(float64(p[i])), "n=%d lane %d", n, i)
		}
	}
}

// softmaxGradRow's assembly and Go loop agree on every tail length and
// write nothing past n.
func TestSoftmaxGradRowPathsAgree(t *testing.T) {
	if !hasAVX2FMA || !asmBuilt {
		t.Skip("no AVX2 here")
	}
	rng := rand.New(rand.NewPCG(19, 20))
	defer func(old bool) { useAVX2 = old }(useAVX2)
	for n := 1; n <= 41; n++ {
		p, dp := make([]float32, n), make([]float32, n)
		for i := range p {
			p[i], dp[i] = float32(rng.Float64()), float32(rng.NormFloat64())
		}
		got, want := make([]float32, n+8), make([]float32, n+8)
		for i := n; i < n+8; i++ {
			got[i], want[i] = 7, 7
		}
		useAVX2 = true
		softmaxGradRow(p, dp, 0.25, got[:n])
		useAVX2 = false
		softmaxGradRow(p, dp, 0.25, want[:n])
		for i := range want {
			assert.InDelta(t, want[i], got[i], 1e-6*(1e-30+math.Abs(float64(want[i]))), "n=%d lane %d", n, i)
		}
	}
}

// The AVX-512 products sum every element exactly as the AVX2 ones do.
func TestAttentionProductsAVX512MatchAVX2Bitwise(t *testing.T) {
	if !hasAVX2FMA || !hasAVX512F || !asmBuilt {
		t.Skip("no AVX-512 here")
	}
	rng := rand.New(rand.NewPCG(29, 30))
	for _, c := range []struct{ hdp, n, ld int }{{16, 8, 8}, {16, 72, 160}, {16, 152, 152}, {32, 200, 256}, {8, 17 * 8, 144}} {
		x, at := opsRandn(rng, c.hdp, 0, 1), opsRandn(rng, c.hdp*c.ld, 0, 1)
		want, got := make([]float32, c.n), make([]float32, c.n)
		gemvTAVX2(x, at, c.ld, c.n, want)
		gemvTAVX512(x, at, c.ld, c.n, got)
		assert.Equal(t, want, got, "gemvT %+v", c)
	}
	for _, n := range []int{0, 1, 3, 4, 5, 148, 255} {
		p, a := opsRandn(rng, n, 0, 1), opsRandn(rng, n*16, 0, 1)
		want, got := make([]float32, 16), make([]float32, 16)
		gemvNAVX2(p, a, n, want)
		gemvN16AVX512(p, a, n, got)
		assert.Equal(t, want, got, "gemvN n=%d", n)
	}
}

func TestSoftmaxGradRowAVX512MatchesAVX2Bitwise(t *testing.T) {
	if !hasAVX2FMA || !hasAVX512F || !asmBuilt {
		t.Skip("no AVX-512 here")
	}
	rng := rand.New(rand.NewPCG(33, 34))
	for n := 1; n <= 70; n++ {
		p, dp := opsRandn(rng, n, 0.5, 0.3), opsRandn(rng, n, 0, 1)
		want, got := make([]float32, n+16), make([]float32, n+16)
		for i := n; i < n+16; i++ {
			want[i], got[i] = 7, 7
		}
		softmaxGradRowAVX2(&p[0], &dp[0], n, 0.25, &want[0])
		softmaxGradRowAVX512(&p[0], &dp[0], n, 0.25, &got[0])
		assert.Equal(t, want, got, "n=%d", n)
	}
}

func TestSoftmaxRowAVX512MatchesAVX2Bitwise(t *testing.T) {
	if !hasAVX2FMA || !hasAVX512F || !asmBuilt {
		t.Skip("no AVX-512 here")
	}
	rng := rand.New(rand.NewPCG(35, 36))
	for n := 1; n <= 70; n++ {
		x := opsRandn(rng, n, 0, 20)
		if n%5 == 0 {
			x[n/2] = float32(math.Inf(-1))
		}
		xa, xb := append([]float32(nil), x...), append([]float32(nil), x...)
		want, got := make([]float32, n+16), make([]float32, n+16)
		for i := n; i < n+16; i++ {
			want[i], got[i] = 7, 7
		}
		softmaxRowAVX2(&xa[0], n, 0.25, &want[0])
		softmaxRowAVX512(&xb[0], n, 0.25, &got[0])
		assert.Equal(t, want, got, "n=%d", n)
		assert.Equal(t, xa, xb, "scratch n=%d", n)
	}
}

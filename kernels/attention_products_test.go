package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The triangular tile products give bitwise the full-square Sgemm
// products, for sizes that leave partial row tiles and column slivers, on
// every kernel set this machine runs.
func TestAttentionProductsMatchSgemm(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	for _, kern := range sgemmTestSets() {
		for _, c := range []struct{ T, hd, heads int }{{1, 8, 1}, {5, 16, 2}, {13, 2, 3}, {37, 16, 4}, {64, 24, 2}, {130, 32, 4}, {41, 64, 2}, {256, 16, 1}, {300, 8, 1}} {
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
				w.loadBackward(kern, qkv, dout, 0, C, off)
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

// tiledShapes are the shapes the tiled forward and backward are checked
// on against their row-by-row loops: a single position, partial row tiles,
// several heads and batches, and a head size (6) that is not a multiple of
// 8, which takes the padded row path.
var tiledShapes = []AttentionShape{
	{Batch: 1, SeqLen: 1, Channels: 8, Heads: 1}, {Batch: 2, SeqLen: 5, Channels: 32, Heads: 2},
	{Batch: 1, SeqLen: 12, Channels: 64, Heads: 4}, {Batch: 2, SeqLen: 13, Channels: 16, Heads: 2},
	{Batch: 1, SeqLen: 37, Channels: 64, Heads: 2}, {Batch: 2, SeqLen: 64, Channels: 64, Heads: 4},
	{Batch: 1, SeqLen: 29, Channels: 12, Heads: 2},
}

// attentionForwardRows is the fast forward's row-by-row loop (gemvT,
// softmaxRow, gemvN on the transposed k), which forwardTiled must match
// bit for bit.
func attentionForwardRows(qkv []float32, sh AttentionShape, out, att []float32) {
	T, C, H, hd := sh.SeqLen, sh.Channels, sh.Heads, sh.HeadSize()
	scale := float32(1 / math.Sqrt(float64(hd)))
	hdp, ld := roundUp8(hd), roundUp8(T)
	for bh := 0; bh < sh.Batch*H; bh++ {
		b, h := bh/H, bh%H
		q, v, kt := make([]float32, T*hdp), make([]float32, T*hdp), make([]float32, hdp*ld)
		sc, o := make([]float32, ld), make([]float32, hdp)
		for s := range T {
			row := qkv[(b*T+s)*3*C:]
			copy(q[s*hdp:][:hd], row[h*hd:][:hd])
			copy(v[s*hdp:][:hd], row[2*C+h*hd:][:hd])
			for i, x := range row[C+h*hd:][:hd] {
				kt[i*ld+s] = x
			}
		}
		for t := range T {
			gemvT(q[t*hdp:(t+1)*hdp], kt, ld, roundUp8(t+1), sc)
			row := att[(bh*T+t)*T:][:t+1]
			softmaxRow(sc[:t+1], scale, row)
			gemvN(row, v, t+1, o)
			copy(out[(b*T+t)*C+h*hd:][:hd], o)
		}
	}
}

func TestAttentionForwardTiledMatchesRowsBitwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(83, 84))
	for _, avx := range productPaths() {
		for _, sh := range tiledShapes {
			withProducts(avx, func() {
				qkv := opsRandn(rng, sh.QKVLen(), 0, 2)
				want, wantAtt := make([]float32, sh.OutLen()), make([]float32, sh.AttLen())
				got, gotAtt := make([]float32, sh.OutLen()), make([]float32, sh.AttLen())
				attentionForwardRows(qkv, sh, want, wantAtt)
				require.NoError(t, AttentionForward(qkv, sh, got, gotAtt))
				assert.Equal(t, want, got, "out avx=%v %+v", avx, sh)
				assert.Equal(t, wantAtt, gotAtt, "att avx=%v %+v", avx, sh)
			})
		}
	}
}

// attentionBackwardRows is the backward as rows and full-square products
// (gemvT on the transposed v, softmaxGradRow, three Sgemm products), which
// the tiled backward must match bit for bit.
func attentionBackwardRows(qkv []float32, sh AttentionShape, att, dout, dqkv []float32) {
	T, C, H, hd := sh.SeqLen, sh.Channels, sh.Heads, sh.HeadSize()
	scale := 1 / math.Sqrt(float64(hd))
	hdp, ld := roundUp8(hd), roundUp8(T)
	for bh := 0; bh < sh.Batch*H; bh++ {
		b, h := bh/H, bh%H
		do, vt, sc := make([]float32, T*hdp), make([]float32, hdp*ld), make([]float32, ld)
		dat, pt := make([]float32, T*T), make([]float32, T*T)
		for s := range T {
			copy(do[s*hdp:][:hd], dout[(b*T+s)*C+h*hd:][:hd])
			for i, x := range qkv[(b*T+s)*3*C+2*C+h*hd:][:hd] {
				vt[i*ld+s] = x
			}
		}
		for t := range T {
			gemvT(do[t*hdp:(t+1)*hdp], vt, ld, roundUp8(t+1), sc)
			row := att[(bh*T+t)*T:][:t+1]
			softmaxGradRow(row, sc[:t+1], scale, dat[t*T:t*T+t+1])
			copy(pt[t*T:t*T+t+1], row)
		}
		kern, base, l := sgemmKernels(), b*T*3*C, 3*C
		mustSgemm(kern, false, T, hd, T, dat, T, qkv[base+C+h*hd:], l, dqkv[base+h*hd:], l)
		mustSgemm(kern, true, T, hd, T, dat, T, qkv[base+h*hd:], l, dqkv[base+C+h*hd:], l)
		mustSgemm(kern, true, T, hd, T, pt, T, do, hdp, dqkv[base+2*C+h*hd:], l)
	}
}

func TestAttentionBackwardTiledMatchesRowsBitwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(85, 86))
	for _, avx := range productPaths() {
		for _, sh := range tiledShapes {
			withProducts(avx, func() {
				qkv, dout := opsRandn(rng, sh.QKVLen(), 0, 2), opsRandn(rng, sh.OutLen(), 0, 1)
				out, att := make([]float32, sh.OutLen()), make([]float32, sh.AttLen())
				require.NoError(t, AttentionForward(qkv, sh, out, att))
				want, got := make([]float32, sh.QKVLen()), make([]float32, sh.QKVLen())
				attentionBackwardRows(qkv, sh, att, dout, want)
				require.NoError(t, AttentionBackward(qkv, sh, att, dout, got))
				assert.Equal(t, want, got, "avx=%v %+v", avx, sh)
			})
		}
	}
}

package model

import (
	"math"
	"runtime"

	"arew/kernels"
)

// cache writes the keys and values of the call's rows for layer l into
// the cache layout (see Decoder.k).
func (d *Decoder) cache(l, rows int) {
	c := d.c
	C, H := c.DModel, c.Heads
	hd := C / H
	for r := range rows {
		s, t := d.rowSeq[r], d.rowPos[r]
		k, v := d.qkv[r*3*C+C:r*3*C+2*C], d.qkv[r*3*C+2*C:r*3*C+3*C]
		for h := range H {
			kt := d.k[l][(s*H+h)*d.hdp*d.ld:]
			for i, x := range k[h*hd : (h+1)*hd] {
				kt[i*d.ld+t] = x
			}
			copy(d.v[l][((s*H+h)*c.Context+t)*d.hdp:][:hd], v[h*hd:(h+1)*hd])
		}
	}
}

// attention fills d.att (rows, C) for layer l: for each row r (slot s at
// position t) and head h, with q the row's query and k, v the slot's cached
// keys and values (this call's included),
//
//	a_u = q·k_u/√hd (u ≤ t),   att_r = Σ_{u≤t} softmax(a)_u · v_u
//
// by kernels.CachedAttention: the row max subtracted before exp and the
// normaliser summed in float64, as the training graph's attention kernel
// does. (row, head) pairs are independent and split over the kernels' worker
// pool (kernels.ParallelParts); each is computed in the same order whatever
// the split.
func (d *Decoder) attention(l, rows int) {
	c := d.c
	C, H := c.DModel, c.Heads
	hd := C / H
	scale := float32(1 / math.Sqrt(float64(hd)))
	work := 0
	for r := range rows {
		work += (d.rowPos[r] + 1) * 2 * C
	}
	workers := min(runtime.GOMAXPROCS(0), rows*H, max(1, work/attentionMinWork))
	per := d.ld + 2*d.hdp // scores, padded query, padded output
	if len(d.scores) < workers*per {
		d.scores = make([]float32, workers*per)
	}
	pairs := rows * H
	if workers <= 1 {
		d.attendPairs(l, 0, 0, pairs, scale)
		return
	}
	d.attTask = attentionTask{d: d, l: l, chunk: (pairs + workers - 1) / workers, pairs: pairs, scale: scale}
	kernels.ParallelParts(workers, &d.attTask)
}

// attentionTask is attention's split over the kernels' worker pool: part w
// is the w-th chunk of (row, head) pairs, with scratch w. It lives in the
// Decoder, so handing it over allocates nothing.
type attentionTask struct {
	d               *Decoder
	l, chunk, pairs int
	scale           float32
}

func (a *attentionTask) RunPart(w int) {
	if lo, hi := w*a.chunk, min((w+1)*a.chunk, a.pairs); lo < hi {
		a.d.attendPairs(a.l, w, lo, hi, a.scale)
	}
}

// attendPairs is attention for the (row, head) pairs [lo, hi) of layer l
// (pair = row·H + head), with scratch w of d.scores.
func (d *Decoder) attendPairs(l, w, lo, hi int, scale float32) {
	c := d.c
	C, H := c.DModel, c.Heads
	hd := C / H
	per := d.ld + 2*d.hdp
	buf := d.scores[w*per : (w+1)*per]
	sc, q, out := buf[:d.ld], buf[d.ld:d.ld+d.hdp], buf[d.ld+d.hdp:]
	for pair := lo; pair < hi; pair++ {
		r, h := pair/H, pair%H
		s, t := d.rowSeq[r], d.rowPos[r]
		copy(q, d.qkv[r*3*C+h*hd:r*3*C+(h+1)*hd]) // lanes past hd stay 0
		head := s*H + h
		kt := d.k[l][head*d.hdp*d.ld : (head+1)*d.hdp*d.ld]
		v := d.v[l][head*c.Context*d.hdp : (head+1)*c.Context*d.hdp]
		if err := kernels.CachedAttention(q, kt, v, d.ld, t+1, scale, sc, out); err != nil {
			panic(err) // the sizes come from the config: a bug here
		}
		copy(d.att[r*C+h*hd:r*C+(h+1)*hd], out)
	}
}

func roundUp8(n int) int { return (n + 7) &^ 7 }

// attentionMinWork is the work (multiply-adds) below which splitting the
// decoder's attention over goroutines costs more than it saves.
const attentionMinWork = 1 << 16

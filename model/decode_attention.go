package model

import (
	"math"
	"runtime"
	"sync"
)

// attention fills d.att (rows, C) for layer l: for each row r (slot s at
// position t) and head h, with q the row's query and k, v the slot's cached
// keys and values (this call's included),
//
//	a_u = q·k_u/√hd (u ≤ t),   att_r = Σ_{u≤t} softmax(a)_u · v_u
//
// the row max subtracted before exp and the normaliser summed in float64,
// as the training graph's attention kernel does. (row, head) pairs are
// independent and split over goroutines; each is computed in the same
// order whatever the split.
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
	if len(d.scores) < workers*c.Context {
		d.scores = make([]float32, workers*c.Context)
	}
	one := func(w, lo, hi int) { // pairs [lo, hi) of (row, head), scratch w
		a := d.scores[w*c.Context : (w+1)*c.Context]
		for pair := lo; pair < hi; pair++ {
			r, h := pair/H, pair%H
			s, t := d.rowSeq[r], d.rowPos[r]
			q := d.qkv[r*3*C+h*hd : r*3*C+(h+1)*hd]
			base := s * c.Context * C
			mx := float32(math.Inf(-1))
			for u := 0; u <= t; u++ {
				a[u] = dot32(q, d.k[l][base+u*C+h*hd:base+u*C+(h+1)*hd]) * scale
				mx = max(mx, a[u])
			}
			var sum float64
			for u := 0; u <= t; u++ {
				e := float32(math.Exp(float64(a[u] - mx)))
				a[u] = e
				sum += float64(e)
			}
			inv := float32(1 / sum)
			out := d.att[r*C+h*hd : r*C+(h+1)*hd]
			clear(out)
			for u := 0; u <= t; u++ {
				axpy32(a[u]*inv, d.v[l][base+u*C+h*hd:base+u*C+(h+1)*hd], out)
			}
		}
	}
	pairs := rows * H
	if workers <= 1 {
		one(0, 0, pairs)
		return
	}
	var wg sync.WaitGroup
	chunk := (pairs + workers - 1) / workers
	for w := 0; w < workers; w++ {
		lo, hi := w*chunk, min((w+1)*chunk, pairs)
		if lo >= hi {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			one(w, lo, hi)
		}()
	}
	wg.Wait()
}

// dot32 is Σ_j x_j·y_j over len(x) ≤ len(y), four running sums (a fixed
// order) so the loop is not one long dependency chain.
func dot32(x, y []float32) float32 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float32
	j := 0
	for ; j+4 <= len(x); j += 4 {
		s0 += x[j] * y[j]
		s1 += x[j+1] * y[j+1]
		s2 += x[j+2] * y[j+2]
		s3 += x[j+3] * y[j+3]
	}
	for ; j < len(x); j++ {
		s0 += x[j] * y[j]
	}
	return (s0 + s1) + (s2 + s3)
}

// axpy32 is y += alpha·x over len(y) ≤ len(x).
func axpy32(alpha float32, x, y []float32) {
	x = x[:len(y)]
	j := 0
	for ; j+4 <= len(y); j += 4 {
		y[j] += alpha * x[j]
		y[j+1] += alpha * x[j+1]
		y[j+2] += alpha * x[j+2]
		y[j+3] += alpha * x[j+3]
	}
	for ; j < len(y); j++ {
		y[j] += alpha * x[j]
	}
}

// attentionMinWork is the work (multiply-adds) below which splitting the
// decoder's attention over goroutines costs more than it saves.
const attentionMinWork = 1 << 16

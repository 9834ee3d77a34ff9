package kernels

import (
	"math"
	"sync"
)

// LayerNormForward is the fast LayerNorm forward; the contract (shapes,
// float64 statistics, NaN, errors) is LayerNormForwardRef's. Rows run in
// parallel above a size threshold; each row's sums use four float64
// accumulators (a fixed order per row, so results do not depend on the
// goroutine count). It agrees with the reference to float32 rounding.
func LayerNormForward(x []float32, n, c int, gamma, beta []float32, eps float64, y []float32, mean, rstd []float64) error {
	if err := checkLayerNormForward(x, n, c, gamma, beta, eps, y, mean, rstd); err != nil {
		return err
	}
	gamma, beta = gamma[:c], beta[:c]
	fast := lnAVX2(c)
	parallelTask(&layerNormTasks, n, 8*c, layerNormTask{x, c, gamma, beta, eps, y, mean, rstd, fast})
	return nil
}

type layerNormTask struct {
	x           []float32
	c           int
	gamma, beta []float32
	eps         float64
	y           []float32
	mean, rstd  []float64
	fast        bool
}

func (t *layerNormTask) run(lo, hi int) {
	layerNormRows(t.x, t.c, t.gamma, t.beta, t.eps, t.y, t.mean, t.rstd, t.fast, lo, hi)
}

var layerNormTasks = sync.Pool{New: func() any { return new(layerNormTask) }}

// lnAVX2 reports whether rows of c channels take the AVX2 loops
// (layernorm_amd64.s), which run 8 channels at a time.
func lnAVX2(c int) bool { return useAVX2 && c%8 == 0 && c > 0 }

// layerNormRows is LayerNormForward's rows [lo, hi).
func layerNormRows(x []float32, c int, gamma, beta []float32, eps float64, y []float32, mean, rstd []float64, fast bool, lo, hi int) {
	for ; fast && lo+4 <= hi; lo += 4 {
		// Four rows at a time: their sums are four independent chains
		// in one pass (a row's own sum is the one-row loop's), so the
		// latency of one row's adds hides behind the others'.
		var m, sq [4]float64
		lnSum4AVX2(&x[lo*c], c, &m)
		for k := range m {
			m[k] /= float64(c)
		}
		lnSqSum4AVX2(&x[lo*c], c, &m, &sq)
		for k := range 4 {
			i := lo + k
			r := 1 / math.Sqrt(sq[k]/float64(c)+eps)
			lnApplyAVX2(&x[i*c], &gamma[0], &beta[0], &y[i*c], c, m[k], r)
			if mean != nil {
				mean[i], rstd[i] = m[k], r
			}
		}
	}
	for i := lo; i < hi; i++ {
		row := x[i*c : (i+1)*c]
		out := y[i*c : (i+1)*c]
		var m, r float64
		if fast {
			// The same float64 steps as the Go loops, 4 lanes at a time.
			m = lnSumAVX2(&row[0], c) / float64(c)
			r = 1 / math.Sqrt(lnSqSumAVX2(&row[0], c, m)/float64(c)+eps)
			lnApplyAVX2(&row[0], &gamma[0], &beta[0], &out[0], c, m, r)
		} else {
			m, r = rowMeanRstd(row, eps)
			out = out[:len(row)]
			for j, v := range row {
				out[j] = float32((float64(v)-m)*r*float64(gamma[j]) + float64(beta[j]))
			}
		}
		if mean != nil {
			mean[i], rstd[i] = m, r
		}
	}
}

// rowMeanRstd is the two-pass float64 mean and 1/sqrt(biased var + eps) of
// one row, with four independent accumulators per pass.
func rowMeanRstd(row []float32, eps float64) (mean, rstd float64) {
	c := len(row)
	var s0, s1, s2, s3 float64
	j := 0
	for ; j+4 <= c; j += 4 {
		s0 += float64(row[j])
		s1 += float64(row[j+1])
		s2 += float64(row[j+2])
		s3 += float64(row[j+3])
	}
	for ; j < c; j++ {
		s0 += float64(row[j])
	}
	mean = (s0 + s1 + s2 + s3) / float64(c)
	s0, s1, s2, s3 = 0, 0, 0, 0
	j = 0
	for ; j+4 <= c; j += 4 {
		d0 := float64(row[j]) - mean
		d1 := float64(row[j+1]) - mean
		d2 := float64(row[j+2]) - mean
		d3 := float64(row[j+3]) - mean
		s0 += d0 * d0
		s1 += d1 * d1
		s2 += d2 * d2
		s3 += d3 * d3
	}
	for ; j < c; j++ {
		d := float64(row[j]) - mean
		s0 += d * d
	}
	return mean, 1 / math.Sqrt((s0+s1+s2+s3)/float64(c)+eps)
}

type layerNormBackTask struct {
	x          []float32
	c          int
	gamma      []float32
	mean, rstd []float64
	dy, dx     []float32
}

// run is LayerNormBackward's dx for rows [lo, hi).
func (t *layerNormBackTask) run(lo, hi int) {
	c := t.c
	for ; lnAVX2(c) && lo+2 <= hi; lo += 2 {
		// Two rows at a time: their sums are independent chains in one
		// pass, each row's bitwise layerNormBackwardRow's.
		st := [4]float64{t.mean[lo], t.rstd[lo], t.mean[lo+1], t.rstd[lo+1]}
		var sums [4]float64
		lnBackSums2AVX2(&t.x[lo*c], &t.dy[lo*c], &t.gamma[0], c, &st, &sums)
		for k := range 2 {
			i := lo + k
			gMean, gxMean := sums[2*k]/float64(c), sums[2*k+1]/float64(c)
			lnBackApplyAVX2(&t.x[i*c], &t.dy[i*c], &t.gamma[0], &t.dx[i*c], c, st[2*k], st[2*k+1], gMean, gxMean)
		}
	}
	for i := lo; i < hi; i++ {
		layerNormBackwardRow(t.x[i*c:(i+1)*c], t.dy[i*c:(i+1)*c], t.gamma, t.mean[i], t.rstd[i], t.dx[i*c:(i+1)*c])
	}
}

var layerNormBackTasks = sync.Pool{New: func() any { return new(layerNormBackTask) }}

// layerNormPartialTask is LayerNormBackward's per-chunk column sums: part
// holds, for chunk ch, Σ dy·x̂ at [2ch·c, (2ch+1)·c) and Σ dy after it.
type layerNormPartialTask struct {
	x          []float32
	n, c       int
	mean, rstd []float64
	dy         []float32
	part       []float64
	dgamma     bool
	dbeta      bool
}

// run sums chunks [lo, hi).
func (t *layerNormPartialTask) run(lo, hi int) {
	x, n, c, mean, rstd, dy, part := t.x, t.n, t.c, t.mean, t.rstd, t.dy, t.part
	for ch := lo; ch < hi; ch++ {
		sg, sb := part[2*ch*c:(2*ch+1)*c], part[(2*ch+1)*c:(2*ch+2)*c]
		clear(sg)
		clear(sb)
		i0, i1 := ch*layerNormRowChunk, min((ch+1)*layerNormRowChunk, n)
		if lnAVX2(c) {
			// The same float64 sums in the same order, 8 columns at a time.
			if t.dbeta {
				columnSumsAVX2(&dy[i0*c], i1-i0, c, &sb[0])
			}
			if t.dgamma {
				lnXhatSumsAVX2(&dy[i0*c], &x[i0*c], i1-i0, c, &mean[i0], &rstd[i0], &sg[0])
			}
			continue
		}
		for i := i0; i < i1; i++ {
			dr := dy[i*c : (i+1)*c]
			if t.dbeta {
				sb := sb[:len(dr)]
				for j, d := range dr {
					sb[j] += float64(d)
				}
			}
			if t.dgamma {
				m, r := mean[i], rstd[i]
				xr, sg := x[i*c:(i+1)*c], sg[:len(dr)]
				xr = xr[:len(dr)]
				for j, d := range dr {
					sg[j] += float64(d) * ((float64(xr[j]) - m) * r)
				}
			}
		}
	}
}

var layerNormPartialTasks = sync.Pool{New: func() any { return new(layerNormPartialTask) }}

// layerNormRowChunk is how many rows one partial sum of dgamma and dbeta
// covers. It is fixed, not derived from the goroutine count, so the order
// of every sum, and the result, does not depend on the number of cores.
const layerNormRowChunk = 128

// layerNormPartials recycles the per-chunk partial sums between calls.
var layerNormPartials sync.Pool

// LayerNormBackward is the fast LayerNorm backward; the contract is
// LayerNormBackwardRef's (nil outputs are skipped, outputs overwritten). dx
// runs in parallel over rows; dgamma and dbeta are column sums over all
// rows, summed in float64 per fixed chunk of rows (in parallel) and then
// over the chunks in order, so no result depends on the goroutine count.
func LayerNormBackward(x []float32, n, c int, gamma []float32, mean, rstd []float64, dy, dx, dgamma, dbeta []float32) error {
	if err := checkLayerNormBackward(x, n, c, gamma, mean, rstd, dy, dx, dgamma, dbeta); err != nil {
		return err
	}
	if dx != nil {
		gamma = gamma[:c]
		parallelTask(&layerNormBackTasks, n, 12*c, layerNormBackTask{x, c, gamma, mean, rstd, dy, dx})
	}
	if dgamma == nil && dbeta == nil {
		return nil
	}
	// Each chunk of rows sums its dy·x̂ and dy per column (rows in order,
	// reading rows contiguously); the chunk partials are then added in chunk
	// order.
	chunks := (n + layerNormRowChunk - 1) / layerNormRowChunk
	part := getPartials(2 * chunks * c)
	defer layerNormPartials.Put(part)
	parallelTask(&layerNormPartialTasks, chunks, 4*layerNormRowChunk*c,
		layerNormPartialTask{x, n, c, mean, rstd, dy, *part, dgamma != nil, dbeta != nil})
	for j := 0; j < c; j++ {
		g, b := 0.0, 0.0
		for ch := 0; ch < chunks; ch++ {
			g += (*part)[2*ch*c+j]
			b += (*part)[(2*ch+1)*c+j]
		}
		if dgamma != nil {
			dgamma[j] = float32(g)
		}
		if dbeta != nil {
			dbeta[j] = float32(b)
		}
	}
	return nil
}

func getPartials(n int) *[]float64 {
	if p, ok := layerNormPartials.Get().(*[]float64); ok && cap(*p) >= n {
		*p = (*p)[:n]
		return p
	}
	p := make([]float64, n)
	return &p
}

// layerNormBackwardRow writes one row of dx (see LayerNormBackwardRef),
// with four float64 accumulators per sum (lane j mod 4, the tail in the
// first), the order the AVX2 version (layernorm_amd64.s) keeps, so the
// two agree bitwise.
func layerNormBackwardRow(row, drow, gamma []float32, m, r float64, out []float32) {
	c := len(row)
	drow, gamma, out = drow[:c], gamma[:c], out[:c]
	var gMean, gxMean float64
	if lnAVX2(c) {
		gMean, gxMean = lnBackSumsAVX2(&row[0], &drow[0], &gamma[0], c, m, r)
		gMean /= float64(c)
		gxMean /= float64(c)
		lnBackApplyAVX2(&row[0], &drow[0], &gamma[0], &out[0], c, m, r, gMean, gxMean)
		return
	}
	var g [4]float64
	var gx [4]float64
	j := 0
	for ; j+4 <= c; j += 4 {
		for l := range 4 {
			ga := float64(drow[j+l]) * float64(gamma[j+l])
			g[l] += ga
			gx[l] += ga * ((float64(row[j+l]) - m) * r)
		}
	}
	for ; j < c; j++ {
		ga := float64(drow[j]) * float64(gamma[j])
		g[0] += ga
		gx[0] += ga * ((float64(row[j]) - m) * r)
	}
	gMean = (g[0] + g[1] + g[2] + g[3]) / float64(c)
	gxMean = (gx[0] + gx[1] + gx[2] + gx[3]) / float64(c)
	for j, v := range row {
		xh := (float64(v) - m) * r
		out[j] = float32(r * (float64(drow[j])*float64(gamma[j]) - gMean - xh*gxMean))
	}
}

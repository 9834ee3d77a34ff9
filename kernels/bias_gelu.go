package kernels

import "sync"

// A linear layer's bias followed by GELU (the MLP's first layer), fused:
// forward y = gelu(x + b), backward dz = dy·gelu'(x + b) with the bias
// gradient Σ_rows dz. Each is bitwise the unfused kernels (AddRowBias,
// GELUForward, GELUBackward, AddColumnSums: TestBiasGELUMatchesUnfusedBitwise)
// and makes one pass over memory where they make two: the biased values
// x + b live only in cache, and dz is summed while it is there.

// biasGELUBlock is about how many values the forward biases before it
// activates them (8 KB, in L1).
const biasGELUBlock = 2048

// biasGELUCols is the width of the column groups the backward splits over
// goroutines (a multiple of 8).
const biasGELUCols = 128

// BiasGELUForward sets y[i·d+j] = gelu(x[i·d+j] + b[j]) for i < n, j < d:
// blocks of rows are biased into y (AddRowBias's loop) and activated there
// (GELUForward's), so the result is AddRowBias then GELUForward bitwise.
// y may be x. Rows run in parallel above a size threshold (elementwise:
// deterministic).
func BiasGELUForward(x, b, y []float32, n, d int) error {
	if err := checkBias(len(x), len(y), len(b), n, d); err != nil {
		return err
	}
	if d == 0 {
		return nil
	}
	fast := useAVX2 && d%8 == 0
	parallelTask(&biasGELUForwardTasks, n, 17*d, biasGELUForwardTask{x, b, y, d, fast})
	return nil
}

type biasGELUForwardTask struct {
	x, b, y []float32
	d       int
	fast    bool
}

var biasGELUForwardTasks = sync.Pool{New: func() any { return new(biasGELUForwardTask) }}

func (t *biasGELUForwardTask) run(lo, hi int) {
	step := max(1, biasGELUBlock/t.d)
	for r := lo; r < hi; r += step {
		e := min(r+step, hi)
		addRowBiasRows(t.x, t.b, t.y, t.d, t.fast, r, e)
		geluForwardRange(t.y, t.y, r*t.d, e*t.d)
	}
}

// BiasGELUBackward is BiasGELUForward's backward: dz[i·d+j] =
// dy[i·d+j]·gelu'(x[i·d+j] + b[j]) (overwriting dz), and acc[j] += Σ_i
// dz[i·d+j]. Bitwise AddRowBias into z, GELUBackward(z, dy, dz) and
// AddColumnSums(dz, n, d, acc): each row's x + b is recomputed in a stack
// buffer, and each column of dz is added to acc in float64 in row order
// as it is made. Columns are split in groups of biasGELUCols over
// goroutines above a size threshold; a column stays with one goroutine,
// so the split changes nothing. dz must not overlap x or dy.
func BiasGELUBackward(x, b, dy, dz []float32, n, d int, acc []float64) error {
	if err := checkBias(len(x), len(dz), len(b), n, d); err != nil {
		return err
	}
	if err := checkBias(len(dy), len(dz), len(acc), n, d); err != nil {
		return err
	}
	if n == 0 || d == 0 {
		return nil
	}
	parallelTask(&biasGELUBackwardTasks, ceilDiv(d, biasGELUCols), 26*biasGELUCols*n, biasGELUBackwardTask{x, b, dy, dz, n, d, acc})
	return nil
}

type biasGELUBackwardTask struct {
	x, b, dy, dz []float32
	n, d         int
	acc          []float64
}

var biasGELUBackwardTasks = sync.Pool{New: func() any { return new(biasGELUBackwardTask) }}

// run does the column groups [lo, hi), row after row.
func (t *biasGELUBackwardTask) run(lo, hi int) {
	j0, j1 := lo*biasGELUCols, min(hi*biasGELUCols, t.d)
	var z [biasGELUCols]float32
	for i := range t.n {
		for j := j0; j < j1; j += biasGELUCols {
			je := min(j+biasGELUCols, j1)
			w, r := je-j, i*t.d
			zs, dz := z[:w], t.dz[r+j:r+je]
			if useAVX2 && w%8 == 0 { // the assembly geluBackwardRange calls, without its Go staging
				addRowBiasAVX2(&t.x[r+j], &t.b[j], &zs[0], 1, w)
				if avx512On() {
					geluBwdAVX512(&zs[0], &t.dy[r+j], &dz[0], w)
				} else {
					geluBwdAVX2(&zs[0], &t.dy[r+j], &dz[0], w)
				}
				columnSumsAVX2(&dz[0], 1, w, &t.acc[j])
				continue
			}
			addRowBiasRows(t.x[r+j:r+je], t.b[j:je], zs, w, false, 0, 1)
			geluBackwardRange(zs, t.dy[r+j:r+je], dz, 0, w)
			columnSumsGo(dz, 1, w, 0, w, t.acc[j:je])
		}
	}
}

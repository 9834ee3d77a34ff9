package kernels

import (
	"fmt"
	"sync"
)

// The two loops of a linear layer's bias, y = x + b broadcast over rows and
// its gradient db = Σ_rows dy, on (n, d) row-major matrices. The fast
// versions do exactly the reference's operations in the same order (a
// float32 add per element; float64 column sums, row after row), so they
// agree with it bitwise (TestBiasKernelsMatchRefBitwise): AVX2 only changes
// how many lanes do it at once (bias_amd64.s, for d a multiple of 8).

// AddRowBias sets y[i·d+j] = x[i·d+j] + b[j] for i < n, j < d; y may be x.
// Rows run in parallel above a size threshold (elementwise: deterministic).
func AddRowBias(x, b, y []float32, n, d int) error {
	if err := checkBias(len(x), len(y), len(b), n, d); err != nil {
		return err
	}
	fast := useAVX2 && d%8 == 0 && d > 0
	parallelTask(&addRowBiasTasks, n, d, addRowBiasTask{x, b, y, d, fast})
	return nil
}

type addRowBiasTask struct {
	x, b, y []float32
	d       int
	fast    bool
}

func (t *addRowBiasTask) run(lo, hi int) { addRowBiasRows(t.x, t.b, t.y, t.d, t.fast, lo, hi) }

var addRowBiasTasks = sync.Pool{New: func() any { return new(addRowBiasTask) }}

// addRowBiasRows is AddRowBias on rows [lo, hi).
func addRowBiasRows(x, b, y []float32, d int, fast bool, lo, hi int) {
	if hi <= lo {
		return
	}
	if fast {
		addRowBiasAVX2(&x[lo*d], &b[0], &y[lo*d], hi-lo, d)
		return
	}
	addRowBiasGo(x[lo*d:hi*d], b[:d], y[lo*d:hi*d], d)
}

// AddRowBiasRef is AddRowBias in one plain loop.
func AddRowBiasRef(x, b, y []float32, n, d int) error {
	if err := checkBias(len(x), len(y), len(b), n, d); err != nil {
		return err
	}
	addRowBiasGo(x[:n*d], b[:d], y[:n*d], d)
	return nil
}

func addRowBiasGo(x, b, y []float32, d int) {
	if d == 0 {
		return // nothing to add (and no row to step over)
	}
	for i := 0; i+d <= len(x); i += d {
		row, dst := x[i:i+d], y[i:i+d]
		for j, bj := range b {
			dst[j] = row[j] + bj
		}
	}
}

// AddColumnSums adds Σ_i g[i·d+j] to acc[j] for j < d, each column summed
// in float64 in row order (i = 0, 1, …, n−1). With AVX-512 the columns
// are split in groups of 8 over goroutines above a size threshold (each
// column is summed by one, in row order, so the split changes nothing),
// each group summed in registers (bias_amd64.s), the last d mod 8 columns
// in Go.
func AddColumnSums(g []float32, n, d int, acc []float64) error {
	if err := checkBias(len(g), len(g), len(acc), n, d); err != nil {
		return err
	}
	switch {
	case n == 0 || d == 0:
	case avx512On():
		parallelTask(&columnSumsTasks, ceilDiv(d, 8), 8*n, columnSumsTask{g, n, d, acc})
	case useAVX2 && d%8 == 0:
		columnSumsAVX2(&g[0], n, d, &acc[0])
	default:
		columnSumsGo(g, n, d, 0, d, acc)
	}
	return nil
}

type columnSumsTask struct {
	g    []float32
	n, d int
	acc  []float64
}

var columnSumsTasks = sync.Pool{New: func() any { return new(columnSumsTask) }}

// run sums the columns of groups [lo, hi) (8 columns each, the last group
// cut at d).
func (t *columnSumsTask) run(lo, hi int) {
	j0, j1 := 8*lo, min(8*hi, t.d)
	if w := (j1 - j0) &^ 7; w > 0 {
		columnSumsAVX512(&t.g[j0], t.n, t.d, w, &t.acc[j0])
		j0 += w
	}
	columnSumsGo(t.g, t.n, t.d, j0, j1, t.acc)
}

// AddColumnSumsRef is AddColumnSums in one plain loop.
func AddColumnSumsRef(g []float32, n, d int, acc []float64) error {
	if err := checkBias(len(g), len(g), len(acc), n, d); err != nil {
		return err
	}
	columnSumsGo(g, n, d, 0, d, acc)
	return nil
}

// columnSumsGo is the loop on columns [j0, j1): row after row.
func columnSumsGo(g []float32, n, d, j0, j1 int, acc []float64) {
	acc = acc[j0:j1]
	for i := range n {
		for j, v := range g[i*d+j0 : i*d+j1] {
			acc[j] += float64(v)
		}
	}
}

func checkBias(nx, ny, nb, n, d int) error {
	if n < 0 || d < 0 || nx < n*d || ny < n*d || nb < d {
		return fmt.Errorf("bias: (n, d) = (%d, %d) needs %d values in and out and %d in the vector, got %d, %d, %d",
			n, d, n*d, d, nx, ny, nb)
	}
	return nil
}

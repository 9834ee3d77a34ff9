package model

import (
	"runtime"
	"sync"
)

// matMul is c = a·b (accumulate: c += a·b) for a (m,k), b (k,n), c (m,n),
// row-major: the one place the rollout forward multiplies matrices, a plain
// loop until kernels.MatMul (same signature) replaces it. The i-k-j order
// streams rows of b, so the inner loop is an axpy on contiguous memory.
// Rows are split over goroutines when the product is large enough; each
// element is summed in the same order either way.
func matMul(a, b, c []float32, m, k, n int, accumulate bool) {
	a, b, c = a[:m*k], b[:k*n], c[:m*n]
	parallelRows(m, m*k*n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			ci := c[i*n : (i+1)*n]
			if !accumulate {
				clear(ci)
			}
			for p, aip := range a[i*k : (i+1)*k] {
				axpy32(aip, b[p*n:(p+1)*n], ci)
			}
		}
	})
}

// addRows adds the bias b (n) to every row of x (m,n).
func addRows(x, b []float32, m, n int) {
	for i := 0; i < m; i++ {
		row := x[i*n : (i+1)*n]
		for j, bj := range b[:n] {
			row[j] += bj
		}
	}
}

// parallelMinWork is the work (multiply-adds) below which splitting over
// goroutines costs more than it saves.
const parallelMinWork = 1 << 16

// parallelRows calls f on disjoint [lo, hi) ranges covering [0, rows), over
// up to GOMAXPROCS goroutines when work is large, else inline.
func parallelRows(rows, work int, f func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), rows, max(1, work/parallelMinWork))
	if workers <= 1 {
		f(0, rows)
		return
	}
	var wg sync.WaitGroup
	chunk := (rows + workers - 1) / workers
	for lo := 0; lo < rows; lo += chunk {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			f(lo, hi)
		}(lo, min(lo+chunk, rows))
	}
	wg.Wait()
}

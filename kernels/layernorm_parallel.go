package kernels

import (
	"runtime"
	"sync"
)

// minParallelWork is about how many floating-point operations one extra
// goroutine must get to repay starting it (~1 µs) and the cache traffic of
// handing it a share: below n·work of this, a kernel runs inline.
const minParallelWork = 1 << 15

// parallelFor runs body over [0, n) split into at most GOMAXPROCS contiguous
// chunks, one goroutine each (the caller's goroutine takes the first), and
// waits for them. work is the approximate cost of one item in flops; small
// jobs run inline as body(0, n).
//
// Determinism: every caller makes each item's result depend only on the
// item (rows, columns or (b,h) pairs are independent, and any sum runs in a
// fixed order inside one item), so the outputs are bitwise the same whatever
// the number of goroutines. It is shared by the LayerNorm, GELU and
// attention kernels; it lives here because of file ownership and belongs in
// a kernels/parallel.go.
func parallelFor(n, work int, body func(lo, hi int)) {
	workers := runtime.GOMAXPROCS(0)
	if byWork := n * work / minParallelWork; byWork < workers {
		workers = byWork
	}
	if workers > n {
		workers = n
	}
	if workers <= 1 {
		body(0, n)
		return
	}
	chunk := (n + workers - 1) / workers
	var wg sync.WaitGroup
	for lo := chunk; lo < n; lo += chunk {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			body(lo, hi)
		}(lo, min(lo+chunk, n))
	}
	body(0, min(chunk, n))
	wg.Wait()
}

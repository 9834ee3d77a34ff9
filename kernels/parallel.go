package kernels

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// minParallelWork is about how many floating-point operations one extra
// goroutine must get to repay starting it (~1 µs) and the cache traffic of
// handing it a share: below it, a kernel runs inline.
const minParallelWork = 1 << 15

// parallelBlock is the work (in flops) of one block that a goroutine claims
// at a time: small enough that a goroutine slowed by a busy machine leaves
// the rest to the others, large enough that claiming costs nothing.
const parallelBlock = 1 << 16

// worthParallel reports whether n items of the given cost (flops each) are
// worth more than one goroutine. Callers that must not allocate on small
// inputs test it first and run their body inline, because a closure handed
// to parallelFor escapes to the heap.
func worthParallel(n, work int) bool {
	return runtime.GOMAXPROCS(0) > 1 && n > 1 && n*work >= 2*minParallelWork
}

// parallelFor runs body over [0, n): items are grouped in contiguous blocks
// of about parallelBlock flops (work is one item's cost), which up to
// GOMAXPROCS goroutines claim in turn (the caller's goroutine works too);
// it returns when all are done. Small jobs run inline as body(0, n).
//
// Determinism: every caller makes each item's result depend only on the
// item (rows, columns or (b,h) pairs are independent, and any sum runs in a
// fixed order inside one item), so the outputs are bitwise the same whatever
// the number of goroutines and whichever goroutine takes a block.
func parallelFor(n, work int, body func(lo, hi int)) {
	if n <= 0 {
		return
	}
	if !worthParallel(n, work) {
		body(0, n)
		return
	}
	per := max(1, parallelBlock/max(1, work))
	blocks := (n + per - 1) / per
	workers := min(runtime.GOMAXPROCS(0), blocks)
	if workers <= 1 {
		body(0, n)
		return
	}
	var next atomic.Int64
	claim := func() {
		for {
			b := int(next.Add(1) - 1)
			if b >= blocks {
				return
			}
			lo := b * per
			body(lo, min(lo+per, n))
		}
	}
	var wg sync.WaitGroup
	wg.Add(workers - 1)
	for range workers - 1 {
		go func() {
			defer wg.Done()
			claim()
		}()
	}
	claim()
	wg.Wait()
}

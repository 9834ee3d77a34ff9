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
// of about parallelBlock flops (work is one item's cost), which the caller
// and up to GOMAXPROCS−1 of the pool's helpers claim in turn (pool.go); it
// returns when all are done. Small jobs run inline as body(0, n).
//
// Determinism: the blocks depend only on n and work, and every caller makes
// each item's result depend only on the item (rows, columns or (b,h) pairs
// are independent, and any sum runs in a fixed order inside one item), so
// the outputs are bitwise the same whatever the number of goroutines and
// whichever goroutine takes a block.
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
	j := forJobs.Get().(*forJob)
	j.body, j.n, j.per, j.blocks = body, n, per, blocks
	j.next.Store(0)
	runTask(workers, j, &j.wg)
	j.body = nil // keep no caller memory alive
	forJobs.Put(j)
}

// forJob is one parallelFor call's state shared by its goroutines, pooled
// so that a call allocates nothing but its body closure.
type forJob struct {
	body           func(lo, hi int)
	n, per, blocks int
	next           atomic.Int64
	wg             sync.WaitGroup
}

var forJobs = sync.Pool{New: func() any { return new(forJob) }}

// work claims blocks until none is left.
func (j *forJob) work() {
	for {
		b := int(j.next.Add(1) - 1)
		if b >= j.blocks {
			return
		}
		lo := b * j.per
		j.body(lo, min(lo+j.per, j.n))
	}
}

// ParallelParts calls body(p) once for each part p in [0, parts), on the
// caller's goroutine and up to parts−1 of the pool's idle helpers
// (pool.go), and returns when all are done: the package's scheduler for
// callers outside it that split work themselves (the decoder's attention
// gives each part its own scratch, indexed by p). A body's result must
// depend only on its part, so that who runs which part changes nothing.
func ParallelParts(parts int, body func(part int)) {
	if parts <= 1 {
		if parts == 1 {
			body(0)
		}
		return
	}
	j := partJobs.Get().(*partJob)
	j.body, j.parts = body, parts
	j.next.Store(0)
	runTask(min(parts, runtime.GOMAXPROCS(0)), j, &j.wg)
	j.body = nil
	partJobs.Put(j)
}

type partJob struct {
	body  func(part int)
	parts int
	next  atomic.Int64
	wg    sync.WaitGroup
}

var partJobs = sync.Pool{New: func() any { return new(partJob) }}

func (j *partJob) work() {
	for p := int(j.next.Add(1) - 1); p < j.parts; p = int(j.next.Add(1) - 1) {
		j.body(p)
	}
}

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
// worth more than one goroutine. Callers of parallelFor that must not
// allocate on small inputs test it first and run their body inline, because
// a closure handed to parallelFor escapes to the heap (parallelTask does not
// need it).
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
//
// The closure body escapes to the heap (one allocation per call);
// parallelTask is the same schedule without it.
func parallelFor(n, work int, body func(lo, hi int)) { parallelRun(n, work, rangeFunc(body)) }

// rangeTask is a kernel's loop over the items [lo, hi).
type rangeTask interface{ run(lo, hi int) }

type rangeFunc func(lo, hi int)

func (f rangeFunc) run(lo, hi int) { f(lo, hi) }

// parallelTask is parallelFor for a task given as a value of T whose
// pointer has the loop as its run method: the value is copied into a
// pooled *T (pool's New must make one), so a call allocates nothing.
func parallelTask[T any, P interface {
	*T
	rangeTask
}](pool *sync.Pool, n, work int, task T) {
	p := pool.Get().(P) // not &task: a method call through P would move task to the heap
	*p = task
	parallelRun(n, work, p)
	var zero T
	*p = zero // keep no caller memory alive
	pool.Put(p)
}

// parallelRun is parallelFor's schedule for any rangeTask.
func parallelRun(n, work int, body rangeTask) {
	if n <= 0 {
		return
	}
	if !worthParallel(n, work) {
		body.run(0, n)
		return
	}
	per := max(1, parallelBlock/max(1, work))
	blocks := (n + per - 1) / per
	workers := min(runtime.GOMAXPROCS(0), blocks)
	if workers <= 1 {
		body.run(0, n)
		return
	}
	j := forJobs.Get().(*forJob)
	j.body, j.n, j.per, j.blocks = body, n, per, blocks
	j.next.Store(0)
	runTask(workers, j, &j.handoff)
	j.body = nil // keep no caller memory alive
	forJobs.Put(j)
}

// forJob is one parallel loop's state shared by its goroutines, pooled so
// that a loop allocates nothing itself.
type forJob struct {
	body           rangeTask
	n, per, blocks int
	next           atomic.Int64
	handoff        poolRun
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
		j.body.run(lo, min(lo+j.per, j.n))
	}
}

// ParallelParts calls task.RunPart(p) once for each part p in [0, parts),
// on the caller's goroutine and up to parts−1 of the pool's idle helpers
// (pool.go), and returns when all are done: the package's scheduler for
// callers outside it that split work themselves (the decoder's attention
// gives each part its own scratch, indexed by p). A part's result must
// depend only on the part, so that who runs which part changes nothing.
// A task that is a pointer to the caller's own state makes the call
// allocation-free; PartFunc adapts a closure (which allocates).
func ParallelParts(parts int, task PartTask) {
	if parts <= 1 {
		if parts == 1 {
			task.RunPart(0)
		}
		return
	}
	j := partJobs.Get().(*partJob)
	j.task, j.parts = task, parts
	j.next.Store(0)
	runTask(min(parts, runtime.GOMAXPROCS(0)), j, &j.handoff)
	j.task = nil
	partJobs.Put(j)
}

// PartTask is work split into parts for ParallelParts.
type PartTask interface{ RunPart(part int) }

// PartFunc is a function as a PartTask.
type PartFunc func(part int)

// RunPart calls f(part).
func (f PartFunc) RunPart(part int) { f(part) }

type partJob struct {
	task    PartTask
	parts   int
	next    atomic.Int64
	handoff poolRun
}

var partJobs = sync.Pool{New: func() any { return new(partJob) }}

func (j *partJob) work() {
	for p := int(j.next.Add(1) - 1); p < j.parts; p = int(j.next.Add(1) - 1) {
		j.task.RunPart(p)
	}
}

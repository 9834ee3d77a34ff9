package kernels

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// The one scheduler of the package: a pool of persistent helper
// goroutines that parallelFor and Sgemm both hand their work to.
//
// Why. Starting a goroutine per share of every kernel call cost one
// allocation per goroutine (and a WaitGroup and closures that escape), and
// two schedulers (parallelFor's and Sgemm's) each started their own: about
// 5,000 goroutine starts per PPO update of the small preset. The helpers
// here are started once, when first needed.
//
// How. A caller that wants w goroutines offers its task to w−1 helpers
// without waiting: a helper that is idle takes it, and when none is (the
// helpers are busy with another caller's task, say a second rollout worker's
// product), the caller simply does more of the work itself. The caller
// always works too, then waits for the helpers that took the task. Nothing
// ever blocks on a helper that has not taken the task, so nested or
// concurrent calls cannot deadlock.
//
// Spinning. A goroutine that sleeps leaves its P idle, and an idle P's
// thread sleeps too: waking it again through the Go scheduler took 30–40
// µs on the 2-core virtual machines measured (BenchmarkPoolHelperStart),
// about half of a 2048×64×64 product's time on one thread. So neither side
// sleeps at once. A helper that has finished a task polls for the next one
// for poolSpin before it parks, and the caller polls for its helpers to
// finish for as long before it sleeps on the WaitGroup (were it asleep, the
// last helper's Done would ready it on the helper's P, behind the polling
// helper, and the caller would wait for the idle P to wake). A spinning
// helper takes a task from pool.offer, where it is open while the caller
// works on it, within a microsecond; a parked helper is still handed one
// through the channel when none spins. A training step calls its kernels
// back to back, so most calls find a helper spinning. The cost: a helper
// burns up to poolSpin of its core after each task, which on a machine
// whose other core is busy with another process is taken from that
// process (docs/bench.md, "Two threads").
//
// Determinism. A task is split into blocks that depend only on its sizes
// (never on how many goroutines turn up), each block's result depends
// only on the block, and goroutines merely claim blocks in turn: the output
// is bitwise the same whoever computes which block, and however many do
// (TestParallelForIsDeterministic, and each kernel's worker-count test).

// poolSpin is how long a helper polls for a task after its last one
// before it parks, and how long a caller polls for its helpers before it
// sleeps.
const poolSpin = 50 * time.Microsecond

// poolTask is work that several goroutines run at once, each calling work
// until the task has nothing left to claim.
type poolTask interface{ work() }

// poolRun is one runTask call's hand-off state, kept in the caller's
// (pooled) job: pending counts the helpers that took the task and are not
// done (wg the same, for a caller that sleeps), and seats how many
// spinning helpers may still take it from pool.offer.
type poolRun struct {
	task    poolTask
	pending atomic.Int32
	wg      sync.WaitGroup
	seats   atomic.Int32
}

func (r *poolRun) add(n int) {
	r.pending.Add(int32(n))
	r.wg.Add(n)
}

func (r *poolRun) done() {
	r.pending.Add(-1)
	r.wg.Done()
}

var pool struct {
	mu       sync.Mutex
	started  int
	calls    chan *poolRun           // to parked helpers
	offer    atomic.Pointer[poolRun] // to spinning helpers
	spinning atomic.Int32            // helpers now polling pool.offer
}

func init() { pool.calls = make(chan *poolRun) }

// ensureHelpers starts helpers until there are at least n.
func ensureHelpers(n int) {
	pool.mu.Lock()
	for ; pool.started < n; pool.started++ {
		go helper()
	}
	pool.mu.Unlock()
}

func helper() {
	pool.spinning.Add(1)
	for {
		r := spinForTask()
		if r == nil {
			r = <-pool.calls
		}
		r.task.work()
		// Counted as spinning before the caller can return, so that a
		// caller's next task, handed over at once, is offered to it.
		pool.spinning.Add(1)
		r.done()
	}
}

// spinForTask polls pool.offer for poolSpin and returns the run whose seat
// it took, or nil when none came; pool.spinning counts the helper until
// it returns. It yields to the process's other goroutines every few polls.
func spinForTask() *poolRun {
	start := time.Now()
	for i := 1; ; i++ {
		if r := takeSeat(); r != nil {
			pool.spinning.Add(-1)
			return r
		}
		if i%64 == 0 {
			if time.Since(start) > poolSpin {
				pool.spinning.Add(-1)
				return takeSeat() // one that opened as it stopped spinning
			}
			runtime.Gosched()
		}
	}
}

// takeSeat takes a seat of the open offer, if it has one left.
func takeSeat() *poolRun {
	if r := pool.offer.Load(); r != nil && r.seats.Load() > 0 && r.seats.Add(-1) >= 0 {
		return r
	}
	return nil
}

// runTask runs t.work on the caller's goroutine and on up to workers−1
// idle helpers, and returns when every goroutine that took it is done. r
// must be used by no one else for the duration.
func runTask(workers int, t poolTask, r *poolRun) {
	if workers <= 1 {
		t.work()
		return
	}
	ensureHelpers(workers - 1)
	r.task = t
	want := workers - 1
	offered := false
	if s := min(int(pool.spinning.Load()), want); s > 0 {
		r.add(s)
		r.seats.Store(int32(s))
		if offered = pool.offer.CompareAndSwap(nil, r); offered {
			want -= s
		} else {
			// Another caller's task is open. A helper may still have
			// taken a seat here (its pointer to r left over from an
			// earlier call): it works on this task as any helper does.
			r.closeSeats()
		}
	}
	handed := false
	for range want {
		r.add(1)
		select {
		case pool.calls <- r:
			handed = true
			continue
		default:
		}
		r.done() // no helper idle now: the caller does their share
		break
	}
	if handed {
		// The helper was readied into this P's next slot, from which an
		// idle P steals it only after a short sleep: yield, so that it
		// starts here at once and this goroutine resumes on whichever P
		// comes free first.
		runtime.Gosched()
	}
	t.work()
	if offered {
		pool.offer.CompareAndSwap(r, nil)
		r.closeSeats()
	}
	start := time.Now()
	for i := 1; r.pending.Load() > 0; i++ {
		if i%64 == 0 {
			if time.Since(start) > poolSpin {
				break
			}
			runtime.Gosched()
		}
	}
	r.wg.Wait()
	r.task = nil // keep no caller memory alive
}

// closeSeats takes back the seats no helper took: their share is the
// caller's.
func (r *poolRun) closeSeats() {
	if left := int(r.seats.Swap(0)); left > 0 {
		r.pending.Add(-int32(left))
		r.wg.Add(-left)
	}
}

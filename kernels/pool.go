package kernels

import (
	"runtime"
	"sync"
)

// The one scheduler of the package: a pool of persistent helper
// goroutines that parallelFor and Sgemm both hand their work to.
//
// Why. Starting a goroutine per share of every kernel call cost one
// allocation per goroutine (and a WaitGroup and closures that escape), and
// two schedulers (parallelFor's and Sgemm's) each started their own: about
// 5,000 goroutine starts per PPO update of the small preset. The helpers
// here are started once, when first needed, and then sleep on a channel.
//
// How. A caller that wants w goroutines offers its task to w−1 helpers
// without waiting: a helper that is idle takes it, and when none is (the
// helpers are busy with another caller's task, say a second rollout worker's
// product), the caller simply does more of the work itself. The caller
// always works too, then waits for the helpers that took the task. Nothing
// ever blocks on a busy helper, so nested or concurrent calls cannot
// deadlock.
//
// Determinism. A task is split into blocks that depend only on its sizes
// (never on how many goroutines turn up), each block's result depends
// only on the block, and goroutines merely claim blocks in turn: the output
// is bitwise the same whoever computes which block, and however many do
// (TestParallelForIsDeterministic, and each kernel's worker-count test).

// poolTask is work that several goroutines run at once, each calling work
// until the task has nothing left to claim.
type poolTask interface{ work() }

// poolCall is one offer of a task to a helper; the helper calls wg.Done
// when its work returns. wg lives in the caller's (pooled) job.
type poolCall struct {
	task poolTask
	wg   *sync.WaitGroup
}

var pool struct {
	mu      sync.Mutex
	started int
	calls   chan poolCall
}

func init() { pool.calls = make(chan poolCall) }

// ensureHelpers starts helpers until there are at least n.
func ensureHelpers(n int) {
	pool.mu.Lock()
	for ; pool.started < n; pool.started++ {
		go helper()
	}
	pool.mu.Unlock()
}

func helper() {
	for c := range pool.calls {
		c.task.work()
		c.wg.Done()
	}
}

// runTask runs t.work on the caller's goroutine and on up to workers−1
// idle helpers, and returns when every goroutine that took it is done. wg
// must be unused by anyone else for the duration.
func runTask(workers int, t poolTask, wg *sync.WaitGroup) {
	if workers > 1 {
		ensureHelpers(workers - 1)
	}
	handed := false
	for range workers - 1 {
		wg.Add(1)
		select {
		case pool.calls <- poolCall{t, wg}:
			handed = true
			continue
		default:
		}
		wg.Done() // no helper idle now: the caller does their share
		break
	}
	if handed {
		// The helper was readied into this P's next slot, from which an
		// idle P steals it only after a short sleep (the second goroutine
		// started 37–39 µs after the call on the 2-core Zen 3 host): yield,
		// so that it starts here at once and this goroutine resumes on
		// whichever P comes free first (BenchmarkPoolHelperStart;
		// docs/bench.md, "The AVX2 update on the 2-core Zen 3").
		runtime.Gosched()
	}
	t.work()
	wg.Wait()
}

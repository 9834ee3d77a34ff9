package kernels

import (
	"runtime"
	"sort"
	"sync"
)

// forTrajectoryChunks calls fn(b0, b1) on consecutive ranges of trajectories
// that together cover [0, B) exactly once. When the batch has at least
// minTokens tokens and GOMAXPROCS > 1, the ranges hold about equal numbers of
// tokens and run on their own goroutines; otherwise fn(0, B) runs here.
//
// The fast paths use it with fn writing only the tokens of its own
// trajectories, each trajectory computed by the same per-trajectory loop as
// the reference: the result is then bit-identical to the reference whatever
// the split, so the parallel paths are deterministic.
func forTrajectoryChunks(p Packed, minTokens int, fn func(b0, b1 int)) {
	nb, nt := p.NumTrajectories(), p.NumTokens()
	workers := min(runtime.GOMAXPROCS(0), nb)
	if workers < 2 || nt < minTokens {
		fn(0, nb)
		return
	}
	var wg sync.WaitGroup
	b0 := 0
	for w := 1; w <= workers; w++ {
		b1 := nb
		if w < workers {
			// The first trajectory starting at or after the w-th token quantile.
			target := int32(int64(nt) * int64(w) / int64(workers))
			b1 = max(b0, sort.Search(nb, func(b int) bool { return p.Offsets[b] >= target }))
		}
		if b1 > b0 {
			lo, hi := b0, b1
			if hi == nb {
				fn(lo, hi) // the last chunk runs on the calling goroutine
			} else {
				wg.Go(func() { fn(lo, hi) })
			}
		}
		b0 = b1
	}
	wg.Wait()
}

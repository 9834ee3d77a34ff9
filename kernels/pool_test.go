package kernels

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parallelFor visits every item exactly once, for any size and goroutine
// count, also when several callers share the pool at once and when a body
// calls parallelFor itself (the pool never blocks on a busy helper).
func TestParallelForCoversEveryItemOnce(t *testing.T) {
	cases := []struct {
		name          string
		n, work       int
		procs, nested int
	}{
		{"inline", 10, 1, 4, 0},
		{"one block per item", 64, parallelBlock, 4, 0},
		{"many blocks", 100_003, 7, 4, 0},
		{"one proc", 100_003, 7, 1, 0},
		{"nested", 257, parallelBlock, 3, 300},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(c.procs))
			var wg sync.WaitGroup
			for range 3 { // three callers at once
				wg.Add(1)
				go func() {
					defer wg.Done()
					seen := make([]int32, c.n)
					parallelFor(c.n, c.work, func(lo, hi int) {
						for i := lo; i < hi; i++ {
							seen[i]++
							if c.nested > 0 {
								inner := make([]int32, c.nested)
								parallelFor(c.nested, parallelBlock, func(lo, hi int) {
									for k := lo; k < hi; k++ {
										inner[k]++
									}
								})
								for _, v := range inner {
									if v != 1 {
										seen[i] = -1000
									}
								}
							}
						}
					})
					for i, v := range seen {
						if v != 1 {
							assert.Failf(t, "item not visited once", "item %d visited %d times", i, v)
							return
						}
					}
				}()
			}
			wg.Wait()
		})
	}
}

// In the steady state a parallel call allocates nothing but its closure,
// and a blocked Sgemm nothing at all: the goroutines are the pool's.
func TestPoolCallsDoNotAllocate(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 || raceEnabled {
		t.Skip("needs GOMAXPROCS ≥ 2 and no race detector")
	}
	out := make([]float32, 1<<16)
	body := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] += 1
		}
	}
	allocs := testing.AllocsPerRun(50, func() { parallelFor(len(out), 16, body) })
	assert.LessOrEqual(t, allocs, 0.5, "parallelFor with a prebuilt body")

	const m, n, k = 192, 128, 128
	a, b, c := make([]float32, m*k), make([]float32, k*n), make([]float32, m*n)
	require.Greater(t, sgemmWorkers(m, n, k), 1)
	allocs = testing.AllocsPerRun(50, func() {
		require.NoError(t, Sgemm(false, false, m, n, k, 1, a, k, b, n, 0, c, n))
	})
	assert.LessOrEqual(t, allocs, 0.5, "blocked Sgemm on %d goroutines", sgemmWorkers(m, n, k))
}

// ParallelParts calls each part exactly once, for any part and goroutine
// count.
func TestParallelPartsCallsEachPartOnce(t *testing.T) {
	for _, c := range []struct{ parts, procs int }{{0, 2}, {1, 2}, {2, 2}, {7, 2}, {7, 1}, {3, 8}} {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(c.procs))
		seen := make([]int32, c.parts)
		ParallelParts(c.parts, PartFunc(func(p int) { seen[p]++ }))
		for p, v := range seen {
			assert.Equal(t, int32(1), v, "parts %d procs %d: part %d", c.parts, c.procs, p)
		}
	}
}

// The kernels that hand parallelTask a task (GELU, the row bias, LayerNorm's
// forward and backward) allocate nothing, inline or split over the pool.
func TestParallelTaskKernelsDoNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("no allocation counts under the race detector")
	}
	for _, n := range []int{64, 1 << 16} { // inline, then parallel
		x, y, dx := make([]float32, n), make([]float32, n), make([]float32, n)
		const c = 64
		g, dg, db := make([]float32, c), make([]float32, c), make([]float32, c)
		mean, rstd := make([]float64, n/c), make([]float64, n/c)
		allocs := testing.AllocsPerRun(20, func() {
			require.NoError(t, GELUForward(x, y))
			require.NoError(t, GELUBackward(x, y, dx))
			require.NoError(t, AddRowBias(x, g, y, n/c, c))
			require.NoError(t, LayerNormForward(x, n/c, c, g, g, 1e-5, y, mean, rstd))
			require.NoError(t, LayerNormBackward(x, n/c, c, g, mean, rstd, y, dx, dg, db))
		})
		assert.Zero(t, allocs, "GELU, bias, LayerNorm on %d values", n)
	}
}

// startTask records when its second goroutine starts, then spins ~20 µs.
type startTask struct {
	t0      time.Time
	entered atomic.Int32
	second  time.Duration
}

func (s *startTask) work() {
	if s.entered.Add(1) == 2 {
		s.second = time.Since(s.t0)
	}
	x := 1.0
	for range 20000 {
		x = x*1.0000001 + 1e-9
	}
	startSink = x
}

var startSink float64

// BenchmarkPoolHelperStart times how long after runTask is called the
// second goroutine starts on a task (the hand-off's latency), calls 0, 50 or
// 100 µs apart, and reports its 10th, 50th and 90th percentiles and the
// share of calls a helper joined.
func BenchmarkPoolHelperStart(b *testing.B) {
	if runtime.GOMAXPROCS(0) < 2 {
		b.Skip("needs GOMAXPROCS ≥ 2")
	}
	var r poolRun
	var starts []time.Duration
	i := 0
	for b.Loop() {
		s := &startTask{t0: time.Now()}
		runTask(2, s, &r)
		if s.entered.Load() == 2 {
			starts = append(starts, s.second)
		}
		time.Sleep(time.Duration(i%3) * 50 * time.Microsecond)
		i++
	}
	if len(starts) == 0 {
		return
	}
	slices.Sort(starts)
	q := func(f float64) float64 { return float64(starts[int(f*float64(len(starts)-1))].Nanoseconds()) / 1e3 }
	b.ReportMetric(q(0.1), "p10-µs")
	b.ReportMetric(q(0.5), "p50-µs")
	b.ReportMetric(q(0.9), "p90-µs")
	b.ReportMetric(float64(len(starts))/float64(i), "joined")
}

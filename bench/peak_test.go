package bench

import (
	"fmt"
	"runtime"
	"sync"
	"testing"

	"arew/kernels"
)

// peakIters is one goroutine's share of a BenchmarkPeakFMA iteration:
// 2¹⁸ · 24 FMAs, about 2 ms at 4 GHz.
const peakIters = 1 << 18

// BenchmarkPeakFMA measures the FMA peak (kernels.FMAPeak: independent
// register-only FMAs) per ISA on 1 and GOMAXPROCS goroutines, each locked to
// its own OS thread, reporting GFLOP/s (all threads together) and GHz (the
// clock that rate implies at 2 FMA pipes: GFLOP/s / (threads · 2 · lanes ·
// 2)). Read a kernel's GFLOP/s against the row of its ISA and thread count:
// Sgemm's fraction of peak is its GFLOP/s over this GFLOP/s.
//
//	go test -run '^$' -bench 'PeakFMA|Stream' -count 3 ./bench/
func BenchmarkPeakFMA(b *testing.B) {
	for _, isa := range []struct {
		name  string
		lanes float64
	}{{"avx2", 8}, {"avx512", 16}} {
		for k, threads := range []int{1, runtime.GOMAXPROCS(0)} {
			if k > 0 && threads == 1 {
				continue // GOMAXPROCS is 1
			}
			b.Run(fmt.Sprintf("%s/threads=%d", isa.name, threads), func(b *testing.B) {
				if _, err := kernels.FMAPeak(isa.name, 0); err != nil {
					b.Skip(err)
				}
				var flops float64
				for b.Loop() {
					flops += peakRound(b, isa.name, threads)
				}
				gflops := flops / b.Elapsed().Seconds() / 1e9
				b.ReportMetric(gflops, "GFLOP/s")
				b.ReportMetric(gflops/(float64(threads)*2*isa.lanes*2), "GHz")
			})
		}
	}
}

// peakRound runs peakIters on each of threads locked goroutines and returns
// the flops done.
func peakRound(b *testing.B, isa string, threads int) float64 {
	var wg sync.WaitGroup
	done := make([]float64, threads)
	for i := range threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			f, err := kernels.FMAPeak(isa, peakIters)
			if err != nil {
				b.Error(err)
			}
			done[i] = f
		}()
	}
	wg.Wait()
	s := 0.0
	for _, f := range done {
		s += f
	}
	return s
}

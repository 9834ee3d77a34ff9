package bench

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
)

// streamLen float64s per buffer: 64 MiB each, three buffers, far more than
// the last-level cache of the machines this runs on (32 MiB here).
const streamLen = 8 << 20

// streamBuffers are allocated and touched once, on first use.
var (
	streamOnce    sync.Once
	streamA       []float64
	streamB       []float64
	streamC       []float64
	streamThreads = []int{1, 0} // 0: GOMAXPROCS
)

func buffers() (a, b, c []float64) {
	streamOnce.Do(func() {
		streamA, streamB, streamC = make([]float64, streamLen), make([]float64, streamLen), make([]float64, streamLen)
		for i := range streamA {
			streamA[i], streamB[i], streamC[i] = 1, 2, 0
		}
	})
	return streamA, streamB, streamC
}

// parallel runs f on p contiguous chunks [lo, hi) of the buffers, one
// goroutine each.
func parallel(p int, f func(lo, hi int)) {
	if p == 1 {
		f(0, streamLen)
		return
	}
	var wg sync.WaitGroup
	per := (streamLen + p - 1) / p
	for lo := 0; lo < streamLen; lo += per {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			f(lo, hi)
		}(lo, min(lo+per, streamLen))
	}
	wg.Wait()
}

func benchStream(b *testing.B, bytesPerElem int64, kernel func(lo, hi int)) {
	for k, p := range streamThreads {
		if p == 0 {
			p = runtime.GOMAXPROCS(0)
		}
		if k > 0 && p == streamThreads[0] {
			continue // GOMAXPROCS is 1
		}
		b.Run(fmt.Sprintf("threads=%d", p), func(b *testing.B) {
			b.SetBytes(bytesPerElem * streamLen)
			b.ReportAllocs()
			for b.Loop() {
				parallel(p, kernel)
			}
		})
	}
}

// BenchmarkStreamCopy: c = a, with Go's copy (memmove; non-temporal stores
// for large blocks). Bytes: 16 per element (8 read, 8 written), as STREAM
// counts them.
func BenchmarkStreamCopy(b *testing.B) {
	a, _, c := buffers()
	benchStream(b, 16, func(lo, hi int) { copy(c[lo:hi], a[lo:hi]) })
}

// BenchmarkStreamTriad: a = b + s·c in a plain Go loop (normal stores, so
// the hardware also reads a before writing it). Bytes: 24 per element, as
// STREAM counts them.
func BenchmarkStreamTriad(b *testing.B) {
	a, bb, c := buffers()
	const s = 3.0
	benchStream(b, 24, func(lo, hi int) {
		a, bb, c := a[lo:hi], bb[lo:hi], c[lo:hi]
		for i := range a {
			a[i] = bb[i] + s*c[i]
		}
	})
}

package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// Benchmark sizes N×V: a small batch at a toy vocabulary, then N = 4096
// tokens at V = 128, 1024 and 32768.
var logProbBenchSizes = [][2]int{{2048, 128}, {4096, 128}, {4096, 1024}, {4096, 32768}}

type (
	logProbForward  func([]float32, int, int, []int32, []float32, []float32, []float32) error
	logProbBackward func([]float32, int, int, []int32, []float32, []float32, []float32, []float32, []float32, bool) error
)

// benchLogProb times one forward plus one backward (no entropy, overwriting
// dlogits: what log_softmax + gather and its backward do in PyTorch).
//
// b.SetBytes counts the traffic the pair must move at least, 12·N·V + 24·N
// bytes: the forward reads the logits (4NV) and targets (4N) and writes
// logp and lse (8N); the backward reads the logits again (4NV), targets,
// lse and gLogp (12N) and writes dlogits (4NV). bench/torch_logprob.py
// uses the same count, and bench/doc.go explains how to read the MB/s
// against this machine's copy bandwidth.
func benchLogProb(b *testing.B, fwd logProbForward, bwd logProbBackward, sizes [][2]int) {
	for _, sz := range sizes {
		n, v := sz[0], sz[1]
		b.Run(fmt.Sprintf("%dx%d", n, v), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, uint64(n*v)))
			logits, dz := make([]float32, n*v), make([]float32, n*v)
			for i := range logits {
				logits[i] = float32(2 * r.NormFloat64())
			}
			targets, g := make([]int32, n), make([]float32, n)
			for i := range targets {
				targets[i] = int32(r.IntN(v))
				g[i] = 1
			}
			logp, lse := make([]float32, n), make([]float32, n)
			// One untimed pass faults in dlogits' fresh pages.
			if err := fwd(logits, n, v, targets, logp, lse, nil); err != nil {
				b.Fatal(err)
			}
			if err := bwd(logits, n, v, targets, lse, nil, g, nil, dz, false); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(12*n*v + 24*n))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if err := fwd(logits, n, v, targets, logp, lse, nil); err != nil {
					b.Fatal(err)
				}
				if err := bwd(logits, n, v, targets, lse, nil, g, nil, dz, false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTokenLogProb is the fast path this machine uses (see Impl).
func BenchmarkTokenLogProb(b *testing.B) {
	b.Logf("impl %s, cpu %s", Impl(), CPUFeatures())
	benchLogProb(b, TokenLogProb, TokenLogProbBackward, logProbBenchSizes)
}

// BenchmarkTokenLogProbGo is the portable Go fallback on this machine, to
// show that it, too, pays for itself over the reference.
func BenchmarkTokenLogProbGo(b *testing.B) {
	saved := useAVX2
	defer func() { useAVX2 = saved }()
	useAVX2 = false
	benchLogProb(b, TokenLogProb, TokenLogProbBackward, logProbBenchSizes)
}

// BenchmarkTokenLogProbRef is the reference loop, single-threaded, float64
// math.Exp. The 4096×32768 case is left out: one iteration takes seconds.
func BenchmarkTokenLogProbRef(b *testing.B) {
	benchLogProb(b, TokenLogProbRef, TokenLogProbBackwardRef, logProbBenchSizes[:3])
}

// BenchmarkExp is the vectorised exp alone on 4096 floats in L1.
func BenchmarkExp(b *testing.B) {
	src, dst := make([]float32, 4096), make([]float32, 4096)
	for i := range src {
		src[i] = -float32(i) / 256
	}
	b.SetBytes(8 * int64(len(src)))
	for b.Loop() {
		Exp(dst, src)
	}
}

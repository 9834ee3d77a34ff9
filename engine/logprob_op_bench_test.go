package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// logProbBenchSizes are the realistic sizes: N = 4096 token rows,
// vocabularies of 128, 1024 and 32768.
var logProbBenchSizes = []struct{ n, v int }{{4096, 128}, {4096, 1024}, {4096, 32768}}

// benchLogProbGraph runs forward + backward of a built graph b.N times, each
// time binding logits (alternating between two prepared tensors, so every run
// sees logits other than the last) and targets, as a training step does.
// SetBytes counts the op's compulsory traffic, the same for both graphs:
// logits read by the forward, read again and dlogits written by the backward
// (3·N·V·4 bytes); MB/s of the two benchmarks are then inverse times.
func benchLogProbGraph(b *testing.B, lg *lpGraph, targets tensor.Tensor) {
	rng := rand.New(rand.NewPCG(21, 22))
	var logits [2]*tensor.Dense
	for k := range logits {
		logits[k] = dense(randLogits(rng, lg.n, lg.v, 4), lg.n, lg.v)
	}
	b.SetBytes(int64(3 * lg.n * lg.v * 4))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		lg.m.Reset()
		if err := G.Let(lg.logits, logits[i%2]); err != nil {
			b.Fatal(err)
		}
		if err := G.Let(lg.targets, targets); err != nil {
			b.Fatal(err)
		}
		if err := lg.m.RunAll(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTokenLogProbOp times the fused op in a gorgonia graph:
// loss = Σ a·logp, forward and backward through a TapeMachine.
func BenchmarkTokenLogProbOp(b *testing.B) {
	for _, sz := range logProbBenchSizes {
		b.Run(fmt.Sprintf("%dx%d", sz.n, sz.v), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(23, 24))
			lg := newFusedGraph(b, sz.n, sz.v, randWeights(rng, sz.n), nil)
			defer lg.m.Close()
			y := randTargets(rng, sz.n, sz.v)
			benchLogProbGraph(b, lg, tensor.New(tensor.WithShape(sz.n), tensor.WithBacking(y)))
		})
	}
}

// BenchmarkCompositeLogProb times the same loss on stock gorgonia ops:
// LogSoftMax + a 2-D ByIndices gather (newCompositeGraph).
func BenchmarkCompositeLogProb(b *testing.B) {
	for _, sz := range logProbBenchSizes {
		b.Run(fmt.Sprintf("%dx%d", sz.n, sz.v), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(23, 24))
			lg := newCompositeGraph(b, sz.n, sz.v, randWeights(rng, sz.n), nil)
			defer lg.m.Close()
			y := flatTargets(randTargets(rng, sz.n, sz.v), sz.v)
			benchLogProbGraph(b, lg, tensor.New(tensor.WithShape(sz.n), tensor.WithBacking(y)))
		})
	}
}

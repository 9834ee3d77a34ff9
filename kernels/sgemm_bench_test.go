package kernels

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// sgemmBenchShapes are the products of the transformer (rows = batch·time =
// 2048 tokens, d = 64, MLP 256, heads' QKV 192, vocabulary V), the rollout
// forward (64 sequences), the backward's transposed products, and a square
// one for scale. Names are m x k x n, with the transposed operand marked.
var sgemmBenchShapes = []struct {
	m, k, n        int
	transA, transB bool
}{
	{2048, 64, 192, false, false}, // QKV projection
	{2048, 64, 256, false, false}, // MLP up
	{2048, 256, 64, false, false}, // MLP down
	{2048, 64, 64, false, false},  // attention output, LM head V=64
	{2048, 64, 128, false, false}, // LM head V=128
	{64, 64, 192, false, false},   // rollout step, 64 sequences
	{2048, 192, 64, false, true},  // backward dX = dY·Wᵀ
	{64, 2048, 192, true, false},  // backward dW = Xᵀ·dY
	{512, 512, 512, false, false}, // square, for scale
	{1, 64, 192, false, false},    // rollout step, one sequence (vector path)
	{2048, 64, 1, false, false},   // value head (vector path)
}

func sgemmBenchName(m, k, n int, transA, transB bool) string {
	s := fmt.Sprintf("%dx%dx%d", m, k, n)
	if transA {
		s += "_tA"
	}
	if transB {
		s += "_tB"
	}
	return s
}

// BenchmarkSgemm compares, per shape: fast (Sgemm as chosen here), fast1
// (the same on one goroutine), avx2 (the AVX2 kernels, same driver), go (the
// portable micro-kernel, same driver), gonum (gonum.Implementation.Sgemm,
// which gorgonia uses by default) and ref (SgemmRef). Run interleaved:
//
//	go test ./kernels -run '^$' -bench 'Sgemm/' -count 5 -benchtime 200ms
func BenchmarkSgemm(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, s := range sgemmBenchShapes {
		lda, ldb := s.k, s.n
		if s.transA {
			lda = s.m
		}
		if s.transB {
			ldb = s.k
		}
		x, _ := randMatrix(rng, s.m, s.k, 0)
		y, _ := randMatrix(rng, s.k, s.n, 0)
		c := make([]float32, s.m*s.n)
		flops := 2 * float64(s.m) * float64(s.n) * float64(s.k)
		workers := sgemmWorkers(s.m, s.n, s.k)
		impls := []struct {
			name string
			run  func() error
		}{
			{"fast", func() error {
				return Sgemm(s.transA, s.transB, s.m, s.n, s.k, 1, x, lda, y, ldb, 0, c, s.n)
			}},
			{"fast1", func() error { // one goroutine
				return sgemmWith(sgemmKernels(), 1, s.transA, s.transB, s.m, s.n, s.k, 1, x, lda, y, ldb, 0, c, s.n)
			}},
			{"avx2", func() error { // the AVX2 set, as chosen before AVX-512 (Sgemm's own where the CPU lacks it)
				kern := sgemmAVX2
				if kern == nil || !hasAVX2FMA {
					kern = sgemmKernels()
				}
				return sgemmWith(kern, workers, s.transA, s.transB, s.m, s.n, s.k, 1, x, lda, y, ldb, 0, c, s.n)
			}},
			{"go", func() error {
				return sgemmWith(sgemmGo, workers, s.transA, s.transB, s.m, s.n, s.k, 1, x, lda, y, ldb, 0, c, s.n)
			}},
			{"gonum", func() error {
				gonum.Implementation{}.Sgemm(gonumTrans(s.transA), gonumTrans(s.transB), s.m, s.n, s.k, 1, x, lda, y, ldb, 0, c, s.n)
				return nil
			}},
			{"ref", func() error {
				return SgemmRef(s.transA, s.transB, s.m, s.n, s.k, 1, x, lda, y, ldb, 0, c, s.n)
			}},
		}
		for _, impl := range impls {
			b.Run(sgemmBenchName(s.m, s.k, s.n, s.transA, s.transB)+"/"+impl.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := impl.run(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(flops*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "GFLOP/s")
			})
		}
	}
	b.Logf("kernels %s, GOMAXPROCS %d", sgemmKernels().name, runtime.GOMAXPROCS(0))
}

// BenchmarkSgemmPair runs two one-goroutine products of each shape at once,
// each on its own operands, b.N times each, and reports their flops
// together: what two cores of this machine give the shape when nothing is
// shared but the caches and memory they share anyway. It is the ceiling
// against which BenchmarkSgemm's fast (one product split over GOMAXPROCS
// goroutines) is judged: fast below pair is time lost in the parallel
// driver (hand-off, serial packing, waits between phases), pair below
// twice fast1 is time lost to the hardware (shared cache and memory
// bandwidth, lower clocks with both cores busy). Run with GOMAXPROCS ≥ 2.
func BenchmarkSgemmPair(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, s := range sgemmBenchShapes {
		if s.m == 1 || s.n == 1 {
			continue // the vector path never splits
		}
		lda, ldb := s.k, s.n
		if s.transA {
			lda = s.m
		}
		if s.transB {
			ldb = s.k
		}
		product := func() func() error {
			x, _ := randMatrix(rng, s.m, s.k, 0)
			y, _ := randMatrix(rng, s.k, s.n, 0)
			c := make([]float32, s.m*s.n)
			return func() error {
				return sgemmWith(sgemmKernels(), 1, s.transA, s.transB, s.m, s.n, s.k, 1, x, lda, y, ldb, 0, c, s.n)
			}
		}
		first, second := product(), product()
		flops := 2 * float64(s.m) * float64(s.n) * float64(s.k)
		b.Run(sgemmBenchName(s.m, s.k, s.n, s.transA, s.transB)+"/pair", func(b *testing.B) {
			errs := make(chan error, 1)
			go func() {
				var err error
				for i := 0; i < b.N && err == nil; i++ {
					err = second()
				}
				errs <- err
			}()
			for i := 0; i < b.N; i++ {
				if err := first(); err != nil {
					b.Fatal(err)
				}
			}
			if err := <-errs; err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(2*flops*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "GFLOP/s")
		})
	}
}

func gonumTrans(t bool) blas.Transpose {
	if t {
		return blas.Trans
	}
	return blas.NoTrans
}

// BenchmarkSgemmTile times the micro-kernels alone on one A sliver and one
// (kc,16) B sliver that stay in cache: the ceiling the blocked driver can
// approach (peak is 32 flops per cycle per core with AVX2/FMA). "packed"
// reads A packed (kc,6), "inplace" reads 6 rows of a row-major (6,kc) A.
func BenchmarkSgemmTile(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 2))
	const kc = sgemmKC
	packed, _ := randMatrix(rng, kc, sgemmMR, 0)
	inPlace, lda := randMatrix(rng, sgemmMR, kc, 0)
	bs, _ := randMatrix(rng, kc, sgemmNR, 0)
	c := make([]float32, sgemmMR*sgemmNR)
	for _, k := range []struct {
		name   string
		tile   sgemmTileFunc
		a      []float32
		rs, ks int
	}{
		{"fast/packed", sgemmKernels().tile, packed, 1, sgemmMR},
		{"fast/inplace", sgemmKernels().tile, inPlace, lda, 1},
		{"go/packed", sgemmTileGo, packed, 1, sgemmMR},
	} {
		b.Run(k.name, func(b *testing.B) {
			for b.Loop() {
				k.tile(kc, k.a, k.rs, k.ks, bs, c, sgemmNR, 1, 0)
			}
			b.ReportMetric(2*kc*sgemmMR*sgemmNR*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "GFLOP/s")
		})
	}
}

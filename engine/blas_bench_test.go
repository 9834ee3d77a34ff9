package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// BenchmarkGorgoniaMul times a gorgonia linear layer, forward and backward
// (y = x·W, loss = Σ y⊙R, gradients of x and W: three products, two of them
// transposed), with gonum's BLAS and with FastBLAS. GFLOP/s counts the three
// products only; the rest is gorgonia's own overhead.
//
//	go test ./engine -run '^$' -bench GorgoniaMul -count 5 -benchtime 200ms
func BenchmarkGorgoniaMul(b *testing.B) {
	prev := G.WhichBLAS()
	defer G.Use(prev)
	for _, sh := range []struct{ m, k, n int }{{2048, 64, 192}, {2048, 256, 64}, {64, 64, 192}} {
		for _, impl := range []struct {
			name string
			blas G.BLAS
		}{{"gonum", gonum.Implementation{}}, {"fast", FastBLAS{}}} {
			b.Run(fmt.Sprintf("%dx%dx%d/%s", sh.m, sh.k, sh.n, impl.name), func(b *testing.B) {
				G.Use(impl.blas)
				rng := rand.New(rand.NewPCG(1, 2))
				dense := func(r, c int) *tensor.Dense {
					return tensor.New(tensor.WithShape(r, c), tensor.WithBacking(randFloats(rng, r*c)))
				}
				g := G.NewGraph()
				x := G.NodeFromAny(g, dense(sh.m, sh.k), G.WithName("x"))
				w := G.NodeFromAny(g, dense(sh.k, sh.n), G.WithName("W"))
				r := G.NodeFromAny(g, dense(sh.m, sh.n), G.WithName("R"))
				loss := G.Must(G.Sum(G.Must(G.HadamardProd(G.Must(G.Mul(x, w)), r))))
				if _, err := G.Grad(loss, x, w); err != nil {
					b.Fatal(err)
				}
				vm := G.NewTapeMachine(g)
				defer vm.Close()
				b.ReportAllocs()
				for b.Loop() {
					vm.Reset()
					if err := vm.RunAll(); err != nil {
						b.Fatal(err)
					}
				}
				flops := 3 * 2 * float64(sh.m*sh.k*sh.n)
				b.ReportMetric(flops*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "GFLOP/s")
			})
		}
	}
}

// BenchmarkSgemv compares gonum's and FastBLAS's matrix-vector product
// (y = A·x or Aᵀ·x, A 2048×64 or 64×2048), what gorgonia's Mul of a matrix
// and a vector calls.
//
//	go test ./engine -run '^$' -bench Sgemv -count 5 -benchtime 200ms
func BenchmarkSgemv(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sh := range []struct {
		m, n  int
		trans bool
	}{{2048, 64, false}, {2048, 64, true}, {64, 2048, false}} {
		a := randFloats(rng, sh.m*sh.n)
		lenX, lenY := sh.n, sh.m
		if sh.trans {
			lenX, lenY = sh.m, sh.n
		}
		x, y := randFloats(rng, lenX), make([]float32, lenY)
		tA := blas.NoTrans
		if sh.trans {
			tA = blas.Trans
		}
		name := fmt.Sprintf("%dx%d_trans=%v", sh.m, sh.n, sh.trans)
		b.Run(name+"/gonum", func(b *testing.B) {
			for b.Loop() {
				gonum.Implementation{}.Sgemv(tA, sh.m, sh.n, 1, a, sh.n, x, 1, 0, y, 1)
			}
			b.ReportMetric(2*float64(sh.m*sh.n)*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "GFLOP/s")
		})
		b.Run(name+"/fast", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				FastBLAS{}.Sgemv(tA, sh.m, sh.n, 1, a, sh.n, x, 1, 0, y, 1)
			}
			b.ReportMetric(2*float64(sh.m*sh.n)*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "GFLOP/s")
		})
	}
}

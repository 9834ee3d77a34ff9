package engine

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

func randFloats(rng *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(2*rng.Float64() - 1)
	}
	return x
}

func TestFastBLASSgemmMatchesGonum(t *testing.T) {
	// The adapter's flag and stride translation: every transpose pair (and
	// ConjTrans, which is Trans for real data), with padded strides and
	// α, β ≠ 1, against gonum's own Sgemm.
	rng := rand.New(rand.NewPCG(1, 2))
	flags := []blas.Transpose{blas.NoTrans, blas.Trans, blas.ConjTrans}
	for _, tA := range flags {
		for _, tB := range flags {
			m, n, k := 1+rng.IntN(40), 1+rng.IntN(40), 1+rng.IntN(300)
			aRows, aCols := m, k
			if tA != blas.NoTrans {
				aRows, aCols = k, m
			}
			bRows, bCols := k, n
			if tB != blas.NoTrans {
				bRows, bCols = n, k
			}
			lda, ldb, ldc := aCols+2, bCols+1, n+3
			a := randFloats(rng, (aRows-1)*lda+aCols)
			b := randFloats(rng, (bRows-1)*ldb+bCols)
			c := randFloats(rng, (m-1)*ldc+n)
			want := append([]float32(nil), c...)
			got := append([]float32(nil), c...)
			gonum.Implementation{}.Sgemm(tA, tB, m, n, k, 0.5, a, lda, b, ldb, -2, want, ldc)
			FastBLAS{}.Sgemm(tA, tB, m, n, k, 0.5, a, lda, b, ldb, -2, got, ldc)
			// Both sum k float32 terms of size ≤ 1 in different orders.
			assert.InDeltaSlice(t, want, got, float64(k)*1e-6, "tA=%c tB=%c m=%d n=%d k=%d", tA, tB, m, n, k)
		}
	}
}

func TestFastBLASPanicsLikeGonum(t *testing.T) {
	// gonum's contract is a panic on bad arguments; the adapter keeps it.
	a, b, c := make([]float32, 6), make([]float32, 6), make([]float32, 4)
	ok := func(impl blas.Float32) func() {
		return func() { impl.Sgemm(blas.NoTrans, blas.NoTrans, 2, 2, 3, 1, a, 3, b, 2, 0, c, 2) }
	}
	require.NotPanics(t, ok(FastBLAS{}))
	for name, call := range map[string]func(impl blas.Float32){
		"short A":      func(impl blas.Float32) { impl.Sgemm(blas.NoTrans, blas.NoTrans, 2, 2, 3, 1, a[:5], 3, b, 2, 0, c, 2) },
		"small ldc":    func(impl blas.Float32) { impl.Sgemm(blas.NoTrans, blas.NoTrans, 2, 2, 3, 1, a, 3, b, 2, 0, c, 1) },
		"negative m":   func(impl blas.Float32) { impl.Sgemm(blas.NoTrans, blas.NoTrans, -2, 2, 3, 1, a, 3, b, 2, 0, c, 2) },
		"bad flag":     func(impl blas.Float32) { impl.Sgemm('x', blas.NoTrans, 2, 2, 3, 1, a, 3, b, 2, 0, c, 2) },
		"short C":      func(impl blas.Float32) { impl.Sgemm(blas.NoTrans, blas.NoTrans, 2, 2, 3, 1, a, 3, b, 2, 0, c[:3], 2) },
		"B transposed": func(impl blas.Float32) { impl.Sgemm(blas.NoTrans, blas.Trans, 2, 3, 3, 1, a, 3, b, 3, 0, c, 3) },
	} {
		assert.Panics(t, func() { call(gonum.Implementation{}) }, "gonum, %s", name)
		assert.Panics(t, func() { call(FastBLAS{}) }, "FastBLAS, %s", name)
	}
}

// recordingBLAS is FastBLAS that notes the transpose flags of each Sgemm
// and Sgemv.
type recordingBLAS struct {
	FastBLAS
	mu    *sync.Mutex
	flags *[][2]bool
	gemv  *[]bool
}

func (r recordingBLAS) Sgemv(tA blas.Transpose, m, n int, alpha float32, a []float32, lda int, x []float32, incX int, beta float32, y []float32, incY int) {
	r.mu.Lock()
	*r.gemv = append(*r.gemv, tA != blas.NoTrans)
	r.mu.Unlock()
	r.FastBLAS.Sgemv(tA, m, n, alpha, a, lda, x, incX, beta, y, incY)
}

func (r recordingBLAS) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	r.mu.Lock()
	*r.flags = append(*r.flags, [2]bool{tA != blas.NoTrans, tB != blas.NoTrans})
	r.mu.Unlock()
	r.FastBLAS.Sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// mulGraphResult is what one run of the test graph produces.
type mulGraphResult struct {
	loss                 float32
	y1, y2, y3, y4       []float32
	gx, gw, gv, gxt3, gu []float32
}

// runMulGraph builds and runs, with whichever BLAS gorgonia uses now,
//
//	y1 = x·W, y2 = x·Vᵀ, y3 = Xtᵀ·W2, y4 = x·u (u a vector),
//	loss = Σ y1⊙R1 + Σ y2⊙R2 + Σ y3⊙R3 + Σ y4⊙r4
//
// and returns the values and the gradients of x, W, V, Xt and u. The
// backward of a product multiplies by transposed operands, so every
// transpose pair of Sgemm is exercised, and both flags of Sgemv.
func runMulGraph(t *testing.T, seed uint64, m, k, n int) mulGraphResult {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	dense := func(r, c int) *tensor.Dense {
		return tensor.New(tensor.WithShape(r, c), tensor.WithBacking(randFloats(rng, r*c)))
	}
	g := G.NewGraph()
	x := G.NodeFromAny(g, dense(m, k), G.WithName("x"))
	w := G.NodeFromAny(g, dense(k, n), G.WithName("W"))
	v := G.NodeFromAny(g, dense(n+3, k), G.WithName("V"))
	xt := G.NodeFromAny(g, dense(k, m), G.WithName("Xt"))
	w2 := G.NodeFromAny(g, dense(k, n), G.WithName("W2"))
	r1 := G.NodeFromAny(g, dense(m, n), G.WithName("R1"))
	r2 := G.NodeFromAny(g, dense(m, n+3), G.WithName("R2"))
	r3 := G.NodeFromAny(g, dense(m, n), G.WithName("R3"))
	u := G.NodeFromAny(g, tensor.New(tensor.WithShape(k), tensor.WithBacking(randFloats(rng, k))), G.WithName("u"))
	r4 := G.NodeFromAny(g, tensor.New(tensor.WithShape(m), tensor.WithBacking(randFloats(rng, m))), G.WithName("r4"))

	y1 := G.Must(G.Mul(x, w))
	y2 := G.Must(G.Mul(x, G.Must(G.Transpose(v))))
	y3 := G.Must(G.Mul(G.Must(G.Transpose(xt)), w2))
	l1 := G.Must(G.Sum(G.Must(G.HadamardProd(y1, r1))))
	l2 := G.Must(G.Sum(G.Must(G.HadamardProd(y2, r2))))
	l3 := G.Must(G.Sum(G.Must(G.HadamardProd(y3, r3))))
	y4 := G.Must(G.Mul(x, u))
	l4 := G.Must(G.Sum(G.Must(G.HadamardProd(y4, r4))))
	loss := G.Must(G.Add(G.Must(G.Add(G.Must(G.Add(l1, l2)), l3)), l4))
	_, err := G.Grad(loss, x, w, v, xt, u)
	require.NoError(t, err)
	vm := G.NewTapeMachine(g)
	defer vm.Close()
	require.NoError(t, vm.RunAll())

	copyOf := func(n *G.Node) []float32 {
		return append([]float32(nil), n.Value().Data().([]float32)...)
	}
	gradOf := func(n *G.Node) []float32 {
		gv, err := n.Grad()
		require.NoError(t, err)
		return append([]float32(nil), gv.Data().([]float32)...)
	}
	return mulGraphResult{
		loss: loss.Value().Data().(float32),
		y1:   copyOf(y1), y2: copyOf(y2), y3: copyOf(y3), y4: copyOf(y4),
		gx: gradOf(x), gw: gradOf(w), gv: gradOf(v), gxt3: gradOf(xt), gu: gradOf(u),
	}
}

func TestGorgoniaMulFastBLASMatchesGonum(t *testing.T) {
	prev := G.WhichBLAS()
	defer G.Use(prev)
	for _, sh := range []struct{ m, k, n int }{{5, 7, 3}, {13, 37, 21}, {70, 300, 40}} {
		G.Use(gonum.Implementation{})
		want := runMulGraph(t, 1, sh.m, sh.k, sh.n)

		var mu sync.Mutex
		var flags [][2]bool
		var gemv []bool
		G.Use(recordingBLAS{mu: &mu, flags: &flags, gemv: &gemv})
		got := runMulGraph(t, 1, sh.m, sh.k, sh.n)

		seen := map[[2]bool]bool{}
		for _, f := range flags {
			seen[f] = true
		}
		assert.GreaterOrEqual(t, len(flags), 3, "gorgonia must route its products through the BLAS")
		assert.True(t, seen[[2]bool{false, false}] && seen[[2]bool{false, true}] && seen[[2]bool{true, false}],
			"forward and backward use NoTrans, A·Bᵀ and Aᵀ·B; saw %v", flags)
		assert.ElementsMatch(t, []bool{false, true}, gemv, "x·u forward (A·u) and backward (Aᵀ·dy) call Sgemv")

		tol := float64(sh.k+sh.m) * 2e-6
		assert.InDelta(t, want.loss, got.loss, float64(sh.m*sh.n)*tol, "loss %v", sh)
		assert.InDeltaSlice(t, want.y1, got.y1, tol, "y1 %v", sh)
		assert.InDeltaSlice(t, want.y2, got.y2, tol, "y2 %v", sh)
		assert.InDeltaSlice(t, want.y3, got.y3, tol, "y3 %v", sh)
		assert.InDeltaSlice(t, want.gx, got.gx, tol, "dx %v", sh)
		assert.InDeltaSlice(t, want.gw, got.gw, tol, "dW %v", sh)
		assert.InDeltaSlice(t, want.gv, got.gv, tol, "dV %v", sh)
		assert.InDeltaSlice(t, want.gxt3, got.gxt3, tol, "dXt %v", sh)
		assert.InDeltaSlice(t, want.y4, got.y4, tol, "y4 %v", sh)
		assert.InDeltaSlice(t, want.gu, got.gu, tol, "du %v", sh)
	}
}

func TestGorgoniaMulFastBLASGradCheck(t *testing.T) {
	// Independent of gonum: finite differences of Σ (x·W)⊙R under FastBLAS.
	prev := G.WhichBLAS()
	defer G.Use(prev)
	G.Use(FastBLAS{})
	rng := rand.New(rand.NewPCG(3, 4))
	x := tensor.New(tensor.WithShape(7, 19), tensor.WithBacking(randFloats(rng, 7*19)))
	w := tensor.New(tensor.WithShape(19, 17), tensor.WithBacking(randFloats(rng, 19*17)))
	r := tensor.New(tensor.WithShape(7, 17), tensor.WithBacking(randFloats(rng, 7*17)))
	res, err := GradCheck([]*tensor.Dense{x, w}, func(g *G.ExprGraph, xs G.Nodes) (*G.Node, error) {
		rn := G.NodeFromAny(g, r, G.WithName("R"))
		y, err := G.Mul(xs[0], xs[1])
		if err != nil {
			return nil, err
		}
		p, err := G.HadamardProd(y, rn)
		if err != nil {
			return nil, err
		}
		return G.Sum(p)
	}, 1e-2, 1)
	require.NoError(t, err)
	assert.Less(t, res.MaxRelErr, 1e-2, "worst at %s", res.Where)
}

func TestUseFastBLAS(t *testing.T) {
	prev := G.WhichBLAS()
	defer G.Use(prev)
	UseFastBLAS()
	_, ok := G.WhichBLAS().(FastBLAS)
	assert.True(t, ok, "gorgonia uses %T", G.WhichBLAS())
	_, ok = tensor.WhichBLAS().(FastBLAS)
	assert.True(t, ok, "tensor uses %T", tensor.WhichBLAS())
}

func TestFastBLASSgemvMatchesGonum(t *testing.T) {
	// Both flags, unit and non-unit increments (the latter are gonum's own
	// path), α and β ≠ 1, against gonum's Sgemv.
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tA := range []blas.Transpose{blas.NoTrans, blas.Trans} {
		for _, inc := range []int{1, 2} {
			m, n := 1+rng.IntN(70), 1+rng.IntN(70)
			lda := n + 2
			a := randFloats(rng, (m-1)*lda+n)
			lenX, lenY := n, m
			if tA == blas.Trans {
				lenX, lenY = m, n
			}
			x := randFloats(rng, (lenX-1)*inc+1)
			y := randFloats(rng, (lenY-1)*inc+1)
			want := append([]float32(nil), y...)
			got := append([]float32(nil), y...)
			gonum.Implementation{}.Sgemv(tA, m, n, 0.5, a, lda, x, inc, 1.5, want, inc)
			FastBLAS{}.Sgemv(tA, m, n, 0.5, a, lda, x, inc, 1.5, got, inc)
			assert.InDeltaSlice(t, want, got, 1e-4, "tA=%c inc=%d m=%d n=%d", tA, inc, m, n)
		}
	}
	assert.Panics(t, func() {
		FastBLAS{}.Sgemv(blas.NoTrans, 2, 3, 1, make([]float32, 6), 3, make([]float32, 2), 1, 0, make([]float32, 2), 1)
	})
}

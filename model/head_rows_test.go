package model

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// rowLoss is a loss on a graph's (B·T) outputs with weights the test
// refills between runs: Σ wl·Logp + Σ we·Entropy + Σ wv·(Values − ret)².
type rowLoss struct {
	wl, we, wv, ret []float32
}

func newRowLoss(n int) *rowLoss {
	return &rowLoss{wl: make([]float32, n), we: make([]float32, n), wv: make([]float32, n), ret: make([]float32, n)}
}

// set puts random weights on the listed rows and 0 on every other row.
func (l *rowLoss) set(rng *rand.Rand, rows []int32) {
	for _, s := range [][]float32{l.wl, l.we, l.wv, l.ret} {
		clear(s)
	}
	for _, i := range rows {
		l.wl[i], l.we[i], l.wv[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.Float64())
		l.ret[i] = float32(rng.NormFloat64())
	}
}

func (l *rowLoss) build(t *testing.T, g *Graph) *G.Node {
	in := func(d []float32, name string) *G.Node {
		return G.NodeFromAny(g.G, tensor.New(tensor.WithShape(len(d)), tensor.WithBacking(d)), G.WithName(name))
	}
	sum := func(w []float32, x *G.Node, name string) *G.Node {
		return G.Must(G.Sum(G.Must(G.HadamardProd(in(w, name), x))))
	}
	loss := G.Must(G.Add(sum(l.wl, g.Logp, "wl"), sum(l.we, g.Entropy, "we")))
	d := G.Must(G.Sub(g.Values, in(l.ret, "ret")))
	loss = G.Must(G.Add(loss, sum(l.wv, G.Must(G.Square(d)), "wv")))
	require.NoError(t, g.Compile(loss))
	return loss
}

// TestHeadRowsGraphMatchesPlainGraph: one head-rows graph, rerun with
// several row lists (every row, one row, the first and last row of a
// sequence, rows spread over several sequences, none), against a plain
// graph under the same loss on the listed rows: the loss, the outputs at
// the listed rows and every parameter's gradient agree to float32
// rounding, the unlisted rows' outputs are 0, unmasked and masked.
func TestHeadRowsGraphMatchesPlainGraph(t *testing.T) {
	for _, masked := range []bool{false, true} {
		const V, ctx, B, T = 13, 24, 3, 10
		n := B * T
		m := newRandomModel(t, tinyConfig(t, V, ctx, true, true), 43, 0.3)
		rng := rand.New(rand.NewPCG(43, 3))
		plain, err := m.NewGraph(B, T)
		if masked {
			plain, err = m.NewMaskedGraph(B, T)
		}
		require.NoError(t, err)
		defer plain.Close()
		g, err := m.NewHeadRowsGraph(B, T, n, masked)
		require.NoError(t, err)
		defer g.Close()
		assert.Equal(t, n, g.HeadCapacity())
		assert.Zero(t, plain.HeadCapacity())
		tokens, targets := randomTokens(rng, n, V), randomTokens(rng, n, V)
		require.NoError(t, plain.SetInputs(tokens, targets))
		require.NoError(t, g.SetInputs(tokens, targets))
		if masked {
			bias := make([]float32, n*V)
			for i := range n {
				for v := range V {
					if v != int(targets[i]) && rng.IntN(2) == 0 {
						bias[i*V+v] = -1e4
					}
				}
			}
			require.NoError(t, plain.SetLogitBias(bias))
			require.NoError(t, g.SetLogitBias(bias))
		}
		pl, hl := newRowLoss(n), newRowLoss(n)
		pl.build(t, plain)
		hl.build(t, g)

		run := func(g *Graph) (float64, map[string][]float32) { return lossAndGrads(t, m, g) }
		all := make([]int32, n)
		for i := range all {
			all[i] = int32(i)
		}
		for _, tc := range []struct {
			name string
			rows []int32
		}{
			{"every row", all},
			{"one row", []int32{13}},
			{"first and last rows", []int32{0, 9, 10, 29}},
			{"spread", []int32{1, 2, 5, 11, 12, 17, 18, 19, 22, 27}},
			{"none", nil},
			{"one sequence", []int32{20, 21, 23, 24, 25, 26, 28, 29}},
		} {
			require.NoError(t, g.SetHeadRows(tc.rows))
			seed := rng.Uint64()
			pl.set(rand.New(rand.NewPCG(seed, 1)), tc.rows)
			hl.set(rand.New(rand.NewPCG(seed, 1)), tc.rows)
			want, wantGrads := run(plain)
			got, grads := run(g)
			assert.InDelta(t, want, got, 1e-5+1e-6*math.Abs(want), "masked %v, %s: loss", masked, tc.name)
			worst, norm := 0.0, 0.0
			for name, w := range wantGrads {
				tol := 1e-5
				for _, x := range w {
					tol = math.Max(tol, 1e-4*math.Abs(float64(x)))
					norm = math.Max(norm, math.Abs(float64(x)))
				}
				d := maxAbsDiff(w, grads[name])
				worst = math.Max(worst, d)
				assert.LessOrEqual(t, d, tol, "masked %v, %s: gradient of %s", masked, tc.name, name)
			}
			t.Logf("masked %v, %-19s loss %.7f against %.7f; gradients within %.2g (largest %.3g)", masked, tc.name+":", got, want, worst, norm)
			listed := map[int]int{}
			for k, i := range tc.rows {
				listed[int(i)] = k
			}
			for i := range n {
				k, ok := listed[i]
				if !ok {
					assert.Zero(t, Float32s(g.Logp)[i], "unlisted logp")
					assert.Zero(t, Float32s(g.Entropy)[i], "unlisted entropy")
					assert.Zero(t, Float32s(g.Values)[i], "unlisted value")
					continue
				}
				assert.InDelta(t, Float32s(plain.Logp)[i], Float32s(g.Logp)[i], 1e-5, "logp")
				assert.InDelta(t, Float32s(plain.Entropy)[i], Float32s(g.Entropy)[i], 1e-5, "entropy")
				assert.InDelta(t, Float32s(plain.Values)[i], Float32s(g.Values)[i], 1e-5, "value")
				assert.LessOrEqual(t, maxAbsDiff(Float32s(plain.Logits)[i*V:(i+1)*V], Float32s(g.Logits)[k*V:(k+1)*V]), 1e-5, "logits")
			}
		}
		// Forward only, after the backward: the same outputs.
		before := append([]float32(nil), Float32s(g.Values)...)
		require.NoError(t, g.Forward())
		assert.Equal(t, before, Float32s(g.Values), "Forward recomputes Run's outputs")
	}
}

// TestHeadRowsGraphUnusedCapacity: at FloDial's shape (small preset
// with a value head, B = 16, T = 179, flodialRows), graphs with 0, 1, 64
// and 333 rows of unused capacity give bitwise the same log-probs, values
// and gradients: the unused rows compute on zero rows and add exact
// zeros, so a trainer that grows its capacity (rl: after a resume, from
// scratch) runs the same. Measured on every kernel set and at 1 and 2
// threads; this test runs the machine's.
func TestHeadRowsGraphUnusedCapacity(t *testing.T) {
	const B, T = 16, 179
	cfg, err := NewConfig("small", benchVocab, benchContext)
	require.NoError(t, err)
	cfg = cfg.WithValueHead()
	m := newRandomModel(t, cfg, 3, 0.1)
	rows := flodialRows(B, T)
	rng := rand.New(rand.NewPCG(1, 1))
	n := B * T
	tokens, targets := randomTokens(rng, n, cfg.Vocab), randomTokens(rng, n, cfg.Vocab)
	w := make([]float32, n)
	for _, i := range rows {
		w[i] = float32(rng.NormFloat64())
	}
	var want []float32
	for _, extra := range []int{0, 1, 64, 333} {
		g, err := m.NewHeadRowsGraph(B, T, len(rows)+extra, false)
		require.NoError(t, err)
		require.NoError(t, g.SetInputs(tokens, targets))
		require.NoError(t, g.SetHeadRows(rows))
		wn := G.NodeFromAny(g.G, tensor.New(tensor.WithShape(n), tensor.WithBacking(w)))
		loss := G.Must(G.Add(G.Must(G.Sum(G.Must(G.HadamardProd(wn, g.Logp)))), G.Must(G.Sum(G.Must(G.HadamardProd(wn, g.Values))))))
		require.NoError(t, g.Compile(loss))
		m.Params.ZeroGrad()
		require.NoError(t, g.Run())
		require.NoError(t, g.AccumulateGrads())
		got := append(append([]float32(nil), Float32s(g.Logp)...), Float32s(g.Values)...)
		for _, p := range m.Params.Params() {
			got = append(got, p.Grad...)
		}
		g.Close()
		if want == nil {
			want = got
			continue
		}
		assert.Equal(t, want, got, "%d rows of unused capacity", extra)
	}
}

// TestHeadRowsChecked: bad capacities and row lists are errors, and a
// refused row list leaves the last one in place.
func TestHeadRowsChecked(t *testing.T) {
	m := newRandomModel(t, tinyConfig(t, 7, 16, true, false), 3, 0.1)
	critic := newRandomModel(t, tinyConfig(t, 7, 16, false, true), 3, 0.1)
	for _, c := range []int{0, -1, 2*5 + 1} {
		_, err := m.NewHeadRowsGraph(2, 5, c, false)
		assert.Error(t, err, "capacity %d", c)
	}
	_, err := m.NewHeadRowsGraph(2, 17, 4, false)
	assert.Error(t, err, "beyond the context")
	_, err = critic.NewHeadRowsGraph(2, 5, 4, true)
	assert.Error(t, err, "masked without an LM head")
	plain, err := m.NewGraph(2, 5)
	require.NoError(t, err)
	defer plain.Close()
	assert.Error(t, plain.SetHeadRows([]int32{1}), "not a head-rows graph")

	g, err := m.NewHeadRowsGraph(2, 5, 4, false)
	require.NoError(t, err)
	defer g.Close()
	assert.Nil(t, g.Values, "a policy without a value head")
	require.NoError(t, g.SetHeadRows([]int32{1, 4, 9}))
	for name, rows := range map[string][]int32{
		"out of range": {1, 10},
		"negative":     {-1, 2},
		"duplicate":    {2, 2},
		"decreasing":   {5, 3},
		"too many":     {0, 1, 2, 3, 4},
	} {
		assert.Error(t, g.SetHeadRows(rows), name)
		assert.Equal(t, []int32{1, 4, 9}, g.head.rows, "%s: unchanged", name)
	}
	require.NoError(t, g.SetHeadRows([]int32{0, 1, 2, 3}))
}

// TestRowsAttentionMatchesRef: the listed rows' attention with its
// products as matrix products (the fast path) against the plain loops,
// forward and backward, for row lists with one, several and every row of
// a sequence, first and last positions, and unused capacity.
func TestRowsAttentionMatchesRef(t *testing.T) {
	a := rowsAttention{batch: 4, seqLen: 13, c: 16, heads: 2, capacity: 30}
	rng := rand.New(rand.NewPCG(5, 6))
	n, C := a.batch*a.seqLen, a.c
	qkv, dout := make([]float32, n*3*C), make([]float32, a.capacity*C)
	for i := range qkv {
		qkv[i] = float32(rng.NormFloat64())
	}
	for i := range dout {
		dout[i] = float32(rng.NormFloat64())
	}
	var rows []int32
	for i := range 13 {
		rows = append(rows, int32(13+i)) // every row of sequence 1
	}
	rows = append([]int32{0, 5, 12}, rows...)
	rows = append(rows, 30, 38, 51) // sequence 2 sparse, sequence 3 one (last) row
	require.LessOrEqual(t, len(rows), a.capacity)
	long := []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 50, 51}
	for _, rs := range [][]int32{rows, long, {7}, nil} {
		out, outRef := make([]float32, a.capacity*C), make([]float32, a.capacity*C)
		att, attRef := make([]float32, a.attLen()), make([]float32, a.attLen())
		for i := range out {
			out[i] = 1 // the unused capacity is overwritten with 0
		}
		require.NoError(t, a.forward(qkv, rs, out, att, make([]float32, a.forwardScratchLen())))
		a.forwardRef(qkv, rs, outRef, attRef)
		assert.LessOrEqual(t, maxAbsDiff(outRef, out), 1e-5, "forward, %d rows", len(rs))
		d, dRef := make([]float32, n*3*C), make([]float32, n*3*C)
		require.NoError(t, a.backward(qkv, rs, att, dout, d, make([]float32, a.scratchLen())))
		a.backwardRef(qkv, rs, attRef, dout, dRef)
		assert.LessOrEqual(t, maxAbsDiff(dRef, d), 1e-5, "backward, %d rows", len(rs))
	}
	assert.Error(t, a.forward(qkv, []int32{3, 3}, make([]float32, a.capacity*C), make([]float32, a.attLen()), make([]float32, a.forwardScratchLen())), "duplicate rows")
}

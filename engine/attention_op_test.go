package engine

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"arew/kernels"
)

func TestCausalSelfAttentionOpGradCheck(t *testing.T) {
	for _, tc := range []struct {
		name             string
		b, t, c, h       int
		scale, tolerance float64
	}{
		{"T=1", 2, 1, 4, 2, 1, 1e-3},
		{"B=2 T=3 C=4 H=2", 2, 3, 4, 2, 1, 1e-3},
		{"head size 3", 1, 4, 6, 2, 1, 1e-3},
		{"peaked softmax", 1, 3, 4, 1, 3, 1e-3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(51, uint64(tc.t)))
			qkv := opsTensor(rng, 0, tc.scale, tc.b*tc.t, 3*tc.c)
			res, err := GradCheck([]*tensor.Dense{qkv}, func(g *G.ExprGraph, xs G.Nodes) (*G.Node, error) {
				y, err := CausalSelfAttention(xs[0], tc.b, tc.t, tc.h)
				if err != nil {
					return nil, err
				}
				return weightedSumSeeded(g, y, 5)
			}, 1e-2, 1)
			require.NoError(t, err)
			t.Logf("max abs err %.2e, max rel err %.2e", res.MaxAbsErr, res.MaxRelErr)
			assert.Less(t, res.MaxRelErr, tc.tolerance, res.Where)
		})
	}
}

// Built once and run with new inputs: each run's output and gradient are
// those of its own inputs, i.e. the attention probabilities the backward
// reads are the current run's.
func TestCausalSelfAttentionOpSecondRunUsesNewInputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(52, 1))
	B, T, C, H := 2, 5, 8, 2
	sh := kernels.AttentionShape{Batch: B, SeqLen: T, Channels: C, Heads: H}
	qkv := opsTensor(rng, 0, 1, B*T, 3*C)
	g := G.NewGraph()
	qn := G.NodeFromAny(g, qkv, G.WithName("qkv"))
	out, err := CausalSelfAttention(qn, B, T, H)
	require.NoError(t, err)
	loss, err := weightedSumSeeded(g, out, 6)
	require.NoError(t, err)
	_, err = G.Grad(loss, qn)
	require.NoError(t, err)
	m := G.NewTapeMachine(g)
	defer m.Close()
	w := opsTensor(rand.New(rand.NewPCG(6, 99)), 0, 1, B*T, C).Float32s()
	for run := range 3 {
		copy(qkv.Float32s(), opsTensor(rng, 0, float64(run+1), B*T, 3*C).Float32s())
		m.Reset()
		require.NoError(t, m.RunAll())
		wantOut, att, wantD := make([]float32, sh.OutLen()), make([]float32, sh.AttLen()), make([]float32, sh.QKVLen())
		require.NoError(t, kernels.AttentionForwardRef(qkv.Float32s(), sh, wantOut, att))
		require.NoError(t, kernels.AttentionBackwardRef(qkv.Float32s(), sh, att, w, wantD))
		assert.InDeltaSlice(t, wantOut, out.Value().Data(), 1e-5, "run %d: out", run)
		d, err := qn.Grad()
		require.NoError(t, err)
		assert.InDeltaSlice(t, wantD, d.Data(), 1e-4, "run %d: dqkv", run)
	}
}

// A pre-LN transformer block made of the three ops and stock gorgonia
// matmuls and adds, as the model will build it, passes a finite-difference
// check with respect to every input and weight:
//
//	h = x + Attn(LN1(x)·Wqkv)·Wo,   out = h + GELU(LN2(h)·W1)·W2
func TestTransformerBlockGradCheck(t *testing.T) {
	rng := rand.New(rand.NewPCG(53, 1))
	B, T, C, H, M := 2, 3, 4, 2, 8
	inputs := []*tensor.Dense{
		opsTensor(rng, 0, 1, B*T, C),                         // x
		opsTensor(rng, 1, 0.2, C), opsTensor(rng, 0, 0.2, C), // LN1 gain, bias
		opsTensor(rng, 0, 0.5, C, 3*C), opsTensor(rng, 0, 0.5, C, C), // Wqkv, Wo
		opsTensor(rng, 1, 0.2, C), opsTensor(rng, 0, 0.2, C), // LN2 gain, bias
		opsTensor(rng, 0, 0.5, C, M), opsTensor(rng, 0, 0.5, M, C), // W1, W2
	}
	res, err := GradCheck(inputs, func(g *G.ExprGraph, xs G.Nodes) (*G.Node, error) {
		ln1, err := LayerNorm(xs[0], xs[1], xs[2], 1e-5)
		if err != nil {
			return nil, err
		}
		att, err := CausalSelfAttention(G.Must(G.Mul(ln1, xs[3])), B, T, H)
		if err != nil {
			return nil, err
		}
		h := G.Must(G.Add(xs[0], G.Must(G.Mul(att, xs[4]))))
		ln2, err := LayerNorm(h, xs[5], xs[6], 1e-5)
		if err != nil {
			return nil, err
		}
		mlp, err := GELU(G.Must(G.Mul(ln2, xs[7])))
		if err != nil {
			return nil, err
		}
		return weightedSumSeeded(g, G.Must(G.Add(h, G.Must(G.Mul(mlp, xs[8])))), 7)
	}, 1e-2, 1)
	require.NoError(t, err)
	t.Logf("max abs err %.2e, max rel err %.2e", res.MaxAbsErr, res.MaxRelErr)
	assert.Less(t, res.MaxRelErr, 2e-3, res.Where)
}

func TestCausalSelfAttentionOpRejectsBadInput(t *testing.T) {
	g := G.NewGraph()
	qkv := G.NewMatrix(g, tensor.Float32, G.WithShape(6, 12), G.WithName("qkv"))
	for _, tc := range []struct {
		name        string
		node        *G.Node
		b, t, h     int
		errContains string
	}{
		{"rows", qkv, 2, 4, 2, "rows"},
		{"heads", qkv, 2, 3, 3, "divide"},
		{"columns", G.NewMatrix(g, tensor.Float32, G.WithShape(6, 10), G.WithName("q10")), 2, 3, 1, "3·C"},
		{"dtype", G.NewMatrix(g, tensor.Float64, G.WithShape(6, 12), G.WithName("q64")), 2, 3, 2, "float32"},
		{"rank", G.NewVector(g, tensor.Float32, G.WithShape(12), G.WithName("v")), 1, 1, 1, "rank"},
		{"zero batch", qkv, 0, 3, 2, "rows"},
	} {
		_, err := CausalSelfAttention(tc.node, tc.b, tc.t, tc.h)
		assert.ErrorContains(t, err, tc.errContains, tc.name)
	}
}

package model

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A masked graph's Logp and Entropy are those of the softmax renormalised
// over the allowed tokens (bias 0; the others −1e4), computed here from
// the raw Logits in float64; with a zero bias it is the plain graph,
// bitwise; and a token no position allows gets no gradient in its column
// of the LM head.
func TestMaskedGraph(t *testing.T) {
	const B, T, V = 2, 6, 11
	const masked = -1e4
	m := newRandomModel(t, tinyConfig(t, V, T, true, false), 31, 0.3)
	rng := rand.New(rand.NewPCG(31, 1))
	tokens, targets, loss := paddedBatch(rng, B, T, V)
	allowed := make([][]bool, B*T)
	bias := make([]float32, B*T*V)
	for i := range allowed {
		allowed[i] = make([]bool, V)
		allowed[i][targets[i]] = true
		for j := range V - 1 { // token V−1 is never allowed, except as a target
			if rng.IntN(3) == 0 {
				allowed[i][j] = true
			}
		}
		for j := range V {
			if !allowed[i][j] {
				bias[i*V+j] = masked
			}
		}
	}
	for i := range targets {
		if targets[i] == V-1 {
			targets[i] = 0
			allowed[i][0], bias[i*V] = true, 0
		}
	}

	plain, err := m.NewGraph(B, T)
	require.NoError(t, err)
	defer plain.Close()
	g, err := m.NewMaskedGraph(B, T)
	require.NoError(t, err)
	defer g.Close()
	require.NoError(t, plain.SetInputs(tokens, targets))
	require.NoError(t, g.SetInputs(tokens, targets))
	require.NoError(t, plain.Forward())
	require.NoError(t, g.Forward())
	assert.Equal(t, Float32s(plain.Logp), Float32s(g.Logp), "zero bias: the plain graph")
	assert.Equal(t, Float32s(plain.Entropy), Float32s(g.Entropy))

	require.NoError(t, g.SetLogitBias(bias))
	require.NoError(t, g.Forward())
	z, logp, ent := Float32s(g.Logits), Float32s(g.Logp), Float32s(g.Entropy)
	for i := range B * T {
		lse := math.Inf(-1)
		for j := range V {
			if allowed[i][j] {
				lse = logAddExp(lse, float64(z[i*V+j]))
			}
		}
		h := 0.0
		for j := range V {
			if allowed[i][j] {
				lp := float64(z[i*V+j]) - lse
				h -= math.Exp(lp) * lp
			}
		}
		assert.InDelta(t, float64(z[i*V+int(targets[i])])-lse, float64(logp[i]), 1e-4, "logp at %d", i)
		assert.InDelta(t, h, float64(ent[i]), 1e-4, "entropy at %d", i)
	}

	l, err := loss.build(g)
	require.NoError(t, err)
	require.NoError(t, g.Compile(l))
	require.NoError(t, g.Run())
	m.Params.ZeroGrad()
	require.NoError(t, g.AccumulateGrads())
	head, ok := m.Params.Get(NameLMHead)
	require.True(t, ok)
	var other float64
	for c := range head.Shape[0] {
		assert.Zero(t, head.Grad[c*V+V-1], "the never-allowed token's column")
		other += math.Abs(float64(head.Grad[c*V]))
	}
	assert.Positive(t, other, "an allowed token's column has a gradient")

	assert.ErrorContains(t, plain.SetLogitBias(bias), "not a masked graph")
	assert.ErrorContains(t, g.SetLogitBias(bias[1:]), "B·T·V")
	critic := newRandomModel(t, tinyConfig(t, V, T, false, true), 31, 0.3)
	_, err = critic.NewMaskedGraph(B, T)
	assert.ErrorContains(t, err, "LM head")
}

func logAddExp(a, b float64) float64 {
	if math.IsInf(a, -1) {
		return b
	}
	hi, lo := max(a, b), min(a, b)
	return hi + math.Log1p(math.Exp(lo-hi))
}

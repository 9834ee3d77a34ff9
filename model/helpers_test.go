package model

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// newRandomModel is a model whose weights are far from the init: matrices
// N(0, scale²), biases N(0, (scale/2)²), LayerNorm gains 1 + N(0, 0.1²), so
// logits spread over several units and every path matters.
func newRandomModel(t testing.TB, cfg Config, seed uint64, scale float64) *Model {
	m, err := New(cfg, seed)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(seed, 77))
	for _, p := range m.Params.Params() {
		data := p.Data()
		for i := range data {
			switch {
			case len(p.Shape) == 2:
				data[i] = float32(rng.NormFloat64() * scale)
			case isGain(p.Name):
				data[i] = float32(1 + 0.1*rng.NormFloat64())
			default:
				data[i] = float32(rng.NormFloat64() * scale / 2)
			}
		}
	}
	return m
}

func isGain(name string) bool {
	n := len(name)
	return n > 7 && name[n-7:] == ".weight" && (contains(name, "ln_"))
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func randomTokens(rng *rand.Rand, n, vocab int) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(rng.IntN(vocab))
	}
	return out
}

func maxAbsDiff(a, b []float32) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	worst := 0.0
	for i := range a {
		d := math.Abs(float64(a[i]) - float64(b[i]))
		if math.IsNaN(d) {
			return math.Inf(1)
		}
		worst = max(worst, d)
	}
	return worst
}

// tinyConfig is the tiny preset with the given heads.
func tinyConfig(t testing.TB, vocab, context int, lm, value bool) Config {
	c, err := NewConfig("tiny", vocab, context)
	require.NoError(t, err)
	c.LMHead, c.ValueHead = lm, value
	require.NoError(t, c.Validate())
	return c
}

// lossAndGrads runs g's compiled loss from zeroed gradients and returns
// the loss and a copy of every parameter's gradient, by name.
func lossAndGrads(t *testing.T, m *Model, g *Graph) (float64, map[string][]float32) {
	t.Helper()
	m.Params.ZeroGrad()
	require.NoError(t, g.Run())
	require.NoError(t, g.AccumulateGrads())
	grads := map[string][]float32{}
	for _, p := range m.Params.Params() {
		grads[p.Name] = append([]float32(nil), p.Grad...)
	}
	v, err := g.Loss()
	require.NoError(t, err)
	return v, grads
}

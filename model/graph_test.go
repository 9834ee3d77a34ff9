package model

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	G "gorgonia.org/gorgonia"
)

// paddedBatch is a (B,T) batch of random tokens whose sequence b has
// T − b real positions (right padding, mask 0 after), with targets the next
// token and random returns.
func paddedBatch(rng *rand.Rand, batch, seqLen, vocab int) (tokens, targets []int32, loss testLoss) {
	n := batch * seqLen
	tokens, targets = randomTokens(rng, n, vocab), randomTokens(rng, n, vocab)
	loss = testLoss{mask: make([]float32, n), returns: make([]float32, n), valueCoef: 0.5}
	for b := range batch {
		for t := range seqLen {
			i := b*seqLen + t
			if t < seqLen-b {
				loss.mask[i] = 1
			}
			loss.returns[i] = float32(rng.NormFloat64())
		}
	}
	return tokens, targets, loss
}

func compiledGraph(t *testing.T, m *Model, batch, seqLen int, rng *rand.Rand) (*Graph, testLoss) {
	g, err := m.NewGraph(batch, seqLen)
	require.NoError(t, err)
	tokens, targets, loss := paddedBatch(rng, batch, seqLen, m.Config.Vocab)
	if !m.Config.LMHead {
		targets = nil
	}
	require.NoError(t, g.SetInputs(tokens, targets))
	l, err := loss.build(g)
	require.NoError(t, err)
	require.NoError(t, g.Compile(l))
	return g, loss
}

// The whole tiny model (policy with a shared value head, and a separate
// critic) against central finite differences: for every parameter tensor,
// 6 elements at random, the gradient of L = masked mean of −logp + ½·masked
// mean of (v − ret)², with right padding. The loss is re-evaluated in
// float64 from forward-only runs with the weight nudged in place (the graph
// binds the parameter memory, so a nudge is seen by the next run).
func TestWholeModelGradCheck(t *testing.T) {
	for _, tc := range []struct {
		name      string
		lm, value bool
	}{
		{"policy with shared value head", true, true},
		{"policy", true, false},
		{"separate critic", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const B, T, V = 3, 7, 13
			m := newRandomModel(t, tinyConfig(t, V, 9, tc.lm, tc.value), 21, 0.2)
			rng := rand.New(rand.NewPCG(21, 2))
			g, loss := compiledGraph(t, m, B, T, rng)
			defer g.Close()
			require.NoError(t, g.Run())
			m.Params.ZeroGrad()
			require.NoError(t, g.AccumulateGrads())
			graphLoss, err := g.Loss()
			require.NoError(t, err)
			require.NoError(t, g.Forward())
			base := loss.eval(g)
			assert.InDelta(t, base, graphLoss, 1e-5, "graph loss vs float64 re-evaluation")

			const eps = 5e-3
			worst, checked := 0.0, 0
			for _, p := range m.Params.Params() {
				data := p.Data()
				for range 6 {
					i := rng.IntN(len(data))
					orig := data[i]
					data[i] = orig + eps
					require.NoError(t, g.Forward())
					fp := loss.eval(g)
					data[i] = orig - eps
					require.NoError(t, g.Forward())
					fm := loss.eval(g)
					data[i] = orig
					h := float64(orig+eps) - float64(orig-eps)
					num, ana := (fp-fm)/h, float64(p.Grad[i])
					err := math.Abs(num - ana)
					assert.LessOrEqual(t, err, 2e-4+2e-2*math.Abs(num), "%s[%d]: analytic %g numeric %g", p.Name, i, ana, num)
					worst = max(worst, err/(2e-4+2e-2*math.Abs(num)))
					checked++
				}
			}
			t.Logf("%d elements of %d tensors, loss %.4f, worst error / tolerance %.3f", checked, len(m.Params.Params()), base, worst)
		})
	}
}

// The gradient the graph gives padding is zero: changing the tokens after
// a sequence's end (and their targets) changes no real position's logp
// and no gradient.
func TestPaddingDoesNotLeak(t *testing.T) {
	const B, T, V = 2, 6, 11
	m := newRandomModel(t, tinyConfig(t, V, T, true, true), 22, 0.3)
	rng := rand.New(rand.NewPCG(22, 1))
	g, loss := compiledGraph(t, m, B, T, rng)
	defer g.Close()
	tokens, targets, _ := paddedBatch(rng, B, T, V)
	run := func() ([]float32, []float32) {
		require.NoError(t, g.SetInputs(tokens, targets))
		require.NoError(t, g.Run())
		m.Params.ZeroGrad()
		require.NoError(t, g.AccumulateGrads())
		var grads []float32
		for _, p := range m.Params.Params() {
			grads = append(grads, p.Grad...)
		}
		return append([]float32(nil), Float32s(g.Logp)...), grads
	}
	logp1, grad1 := run()
	for i, mk := range loss.mask {
		if mk == 0 {
			tokens[i], targets[i] = (tokens[i]+3)%V, (targets[i]+5)%V
		}
	}
	logp2, grad2 := run()
	for i, mk := range loss.mask {
		if mk == 1 {
			assert.Equal(t, logp1[i], logp2[i], "real position %d", i)
		}
	}
	assert.Less(t, maxAbsDiff(grad1, grad2), 1e-6)
}

// Run and Forward give the same outputs, bitwise, and the outputs read after
// Run are intact (no later op of the backward reused their memory).
func TestRunAndForwardAgree(t *testing.T) {
	m := newRandomModel(t, tinyConfig(t, 17, 8, true, true), 23, 0.3)
	g, _ := compiledGraph(t, m, 2, 8, rand.New(rand.NewPCG(23, 1)))
	defer g.Close()
	require.NoError(t, g.Run())
	outs := func() [][]float32 {
		var r [][]float32
		for _, n := range []*G.Node{g.Logits, g.Logp, g.Entropy, g.Values} {
			r = append(r, append([]float32(nil), Float32s(n)...))
		}
		return r
	}
	afterRun := outs()
	require.NoError(t, g.Forward())
	assert.Equal(t, outs(), afterRun)
	// A second Run on the same inputs gives the same gradients.
	m.Params.ZeroGrad()
	require.NoError(t, g.AccumulateGrads())
	first := append([]float32(nil), m.Params.Params()[0].Grad...)
	require.NoError(t, g.Run())
	m.Params.ZeroGrad()
	require.NoError(t, g.AccumulateGrads())
	assert.Equal(t, first, m.Params.Params()[0].Grad)
}

// A loss that reaches only some parameters compiles: the others get no
// gradient and keep their Grad.
func TestCompileOnPartOfTheModel(t *testing.T) {
	m := newRandomModel(t, tinyConfig(t, 11, 6, true, true), 24, 0.3)
	g, err := m.NewGraph(2, 6)
	require.NoError(t, err)
	defer g.Close()
	require.NoError(t, g.SetInputs(make([]int32, 12), make([]int32, 12)))
	loss, err := G.Sum(g.Logp) // the value head is not reached
	require.NoError(t, err)
	require.NoError(t, g.Compile(loss))
	assert.ErrorContains(t, g.Compile(loss), "already compiled")
	vw, _ := m.Params.Get(NameValueWeight)
	vw.Grad[0] = 42
	require.NoError(t, g.Run())
	require.NoError(t, g.AccumulateGrads())
	assert.Equal(t, float32(42), vw.Grad[0])
	lm, _ := m.Params.Get(NameLMHead)
	assert.NotZero(t, lm.Grad[0])
}

func TestGraphRejectsBadInput(t *testing.T) {
	m := newRandomModel(t, tinyConfig(t, 11, 6, true, false), 25, 0.3)
	_, err := m.NewGraph(2, 7)
	assert.ErrorContains(t, err, "seqLen ≤ context 6")
	_, err = m.NewGraph(0, 3)
	assert.Error(t, err)
	g, err := m.NewGraph(2, 3)
	require.NoError(t, err)
	defer g.Close()
	ok := []int32{0, 1, 2, 3, 4, 5}
	assert.ErrorContains(t, g.SetInputs(ok[:5], ok), "5 tokens, want B·T = 2·3 = 6")
	assert.ErrorContains(t, g.SetInputs(ok, ok[:4]), "4 targets")
	assert.ErrorContains(t, g.SetInputs([]int32{0, 1, 2, 11, 4, 5}, ok), "token 11 at index 3")
	assert.ErrorContains(t, g.SetInputs(ok, []int32{0, 1, 2, 3, 4, -1}), "target -1 at index 5")
	assert.ErrorContains(t, g.Run(), "compile a loss first")
	assert.ErrorContains(t, g.AccumulateGrads(), "compile a loss first")
	critic, err := New(m.Config.Critic(), 2)
	require.NoError(t, err)
	cg, err := critic.NewGraph(2, 3)
	require.NoError(t, err)
	defer cg.Close()
	assert.ErrorContains(t, cg.SetInputs(ok, ok), "no LM head")
	assert.NoError(t, cg.SetInputs(ok, nil))
	assert.Nil(t, cg.Logits)
}

// Forward works before Compile (old log-probs first, loss later), and its
// machine still gives the same outputs after Compile adds the backward.
func TestForwardBeforeCompile(t *testing.T) {
	m := newRandomModel(t, tinyConfig(t, 17, 8, true, true), 26, 0.3)
	rng := rand.New(rand.NewPCG(26, 1))
	g, err := m.NewGraph(2, 8)
	require.NoError(t, err)
	defer g.Close()
	tokens, targets, loss := paddedBatch(rng, 2, 8, 17)
	require.NoError(t, g.SetInputs(tokens, targets))
	require.NoError(t, g.Forward())
	before := append([]float32(nil), Float32s(g.Logp)...)
	l, err := loss.build(g)
	require.NoError(t, err)
	require.NoError(t, g.Compile(l))
	require.NoError(t, g.Run())
	assert.Equal(t, before, Float32s(g.Logp))
	require.NoError(t, g.Forward())
	assert.Equal(t, before, Float32s(g.Logp))
}

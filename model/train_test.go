package model

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/optim"
)

// reverseCorpus is n sequences "a b c d | d c b a" over digits 1..8 with
// separator 0: tokens (n, 9), targets the next token, and a mask on the
// four positions that predict the reversed half (the first half is random,
// so it is not learnable and not scored).
func reverseCorpus(rng *rand.Rand, n int) (tokens, targets []int32, mask []float32) {
	const half, T = 4, 9
	for range n {
		seq := make([]int32, 2*half+2)
		for i := range half {
			seq[i] = int32(1 + rng.IntN(8))
			seq[2*half-i] = seq[i]
		}
		seq[half] = 0
		seq[2*half+1] = 0 // end marker, only ever a target
		tokens = append(tokens, seq[:T]...)
		targets = append(targets, seq[1:T+1]...)
		for t := range T {
			m := float32(0)
			if t >= half && t < 2*half {
				m = 1
			}
			mask = append(mask, m)
		}
	}
	return tokens, targets, mask
}

// A few hundred AdamW steps on a fixed toy corpus (reverse 4 digits) drive
// the masked loss near zero, and the KV-cache decoder, sampling greedily,
// then writes every reversal.
func TestTrainsReverseTask(t *testing.T) {
	const B, T, V, steps = 32, 9, 9, 200
	rng := rand.New(rand.NewPCG(9, 1))
	cfg := tinyConfig(t, V, T, true, false)
	m, err := New(cfg, 9)
	require.NoError(t, err)
	tokens, targets, mask := reverseCorpus(rng, B)
	g, err := m.NewGraph(B, T)
	require.NoError(t, err)
	defer g.Close()
	require.NoError(t, g.SetInputs(tokens, targets))
	loss, err := testLoss{mask: mask}.build(g)
	require.NoError(t, err)
	require.NoError(t, g.Compile(loss))
	opt, err := optim.NewAdamW(m.Params.Params(), optim.AdamWConfig{Beta1: 0.9, Beta2: 0.95, Eps: 1e-8, WeightDecay: 0.01})
	require.NoError(t, err)
	var first, last float64
	for step := range steps {
		require.NoError(t, g.Run())
		l, err := g.Loss()
		require.NoError(t, err)
		if step == 0 {
			first = l
		}
		last = l
		m.Params.ZeroGrad()
		require.NoError(t, g.AccumulateGrads())
		require.NoError(t, opt.Step(5e-3))
	}
	t.Logf("loss %.4f → %.4f after %d steps", first, last, steps)
	assert.Greater(t, first, 1.5, "starts near log 8")
	assert.Less(t, last, 0.02)

	d, err := m.NewDecoder(B)
	require.NoError(t, err)
	slots := make([]int, B)
	prompts := make([][]int32, B)
	for b := range B {
		slots[b], prompts[b] = b, tokens[b*T:b*T+5]
	}
	logits, err := d.Append(slots, prompts)
	require.NoError(t, err)
	greedy := Sampler{Greedy: true}
	correct := 0
	for k := range 4 {
		next := make([]int32, B)
		for b := range B {
			s, err := greedy.Sample(nil, logits[b*V:(b+1)*V])
			require.NoError(t, err)
			next[b] = s.Token
			if s.Token == targets[b*T+4+k] {
				correct++
			}
		}
		if k < 3 {
			logits, err = d.Step(slots, next)
			require.NoError(t, err)
		}
	}
	assert.Equal(t, 4*B, correct, "greedy reversals")
}

package model

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPrefixGraphMatchesPlainGraph: groups of answers sharing a prompt,
// run once through a prefix graph and once as whole sequences through the
// plain graph (each answer after its own copy of the prompt): the answer
// rows' logits, log-probs, entropies and values, the loss and every
// parameter's gradient agree to float32 rounding, unmasked and masked,
// with prompts and answers of different lengths (padding in both).
func TestPrefixGraphMatchesPlainGraph(t *testing.T) {
	for _, masked := range []bool{false, true} {
		const V, ctx = 13, 24
		s := PrefixShape{Groups: 3, Prompt: 9, Answers: 4, AnswerLen: 5}
		m := newRandomModel(t, tinyConfig(t, V, ctx, true, true), 41, 0.3)
		rng := rand.New(rand.NewPCG(41, 2))
		B, T := s.Groups*s.Answers, s.Prompt+s.AnswerLen
		plainTokens, plainTargets := make([]int32, B*T), make([]int32, B*T)
		plainLoss := testLoss{mask: make([]float32, B*T), returns: make([]float32, B*T), valueCoef: 0.5}
		tokens, positions := make([]int32, s.Rows()), make([]int32, s.Rows())
		lens, targets := make([]int32, s.Groups), make([]int32, B*s.AnswerLen)
		loss := testLoss{mask: make([]float32, B*s.AnswerLen), returns: make([]float32, B*s.AnswerLen), valueCoef: 0.5}
		plainBias, bias := make([]float32, B*T*V), make([]float32, B*s.AnswerLen*V)
		np := s.Groups * s.Prompt
		for p := range s.Groups {
			n0 := []int{9, 1, 6}[p] // a full prompt, a one-token one, and one in between
			lens[p] = int32(n0)
			prompt := randomTokens(rng, n0, V)
			copy(tokens[p*s.Prompt:], prompt)
			for i := range s.Prompt {
				positions[p*s.Prompt+i] = int32(i)
			}
			for g := range s.Answers {
				a := p*s.Answers + g
				n := 1 + rng.IntN(s.AnswerLen) // answer rows with a target
				seq := append(append([]int32(nil), prompt...), randomTokens(rng, n+1, V)...)
				copy(plainTokens[a*T:], seq[:len(seq)-1])
				copy(plainTargets[a*T:], seq[1:])
				for j := range s.AnswerLen {
					row, prow := np+a*s.AnswerLen+j, a*T+n0+j
					positions[row] = int32(n0 + j)
					if j >= n {
						continue // padding: token 0 at position n0+j, no loss
					}
					tokens[row], targets[a*s.AnswerLen+j] = seq[n0+j], seq[n0+j+1]
					r := float32(rng.NormFloat64())
					loss.mask[a*s.AnswerLen+j], loss.returns[a*s.AnswerLen+j] = 1, r
					plainLoss.mask[prow], plainLoss.returns[prow] = 1, r
					if masked {
						for v := range V {
							if v != int(seq[n0+j+1]) && rng.IntN(2) == 0 {
								bias[(a*s.AnswerLen+j)*V+v], plainBias[prow*V+v] = -1e4, -1e4
							}
						}
					}
				}
			}
		}

		plain, err := m.NewGraph(B, T)
		if masked {
			plain, err = m.NewMaskedGraph(B, T)
		}
		require.NoError(t, err)
		defer plain.Close()
		g, err := m.NewPrefixGraph(s, masked)
		require.NoError(t, err)
		defer g.Close()
		require.NoError(t, plain.SetInputs(plainTokens, plainTargets))
		require.NoError(t, g.SetPrefixInputs(tokens, positions, lens, targets))
		if masked {
			require.NoError(t, plain.SetLogitBias(plainBias))
			require.NoError(t, g.SetLogitBias(bias))
		} else {
			require.Error(t, g.SetLogitBias(bias), "not a masked graph")
		}
		require.Error(t, g.SetInputs(plainTokens, plainTargets), "a prefix graph takes SetPrefixInputs")

		run := func(g *Graph, l testLoss) (float64, map[string][]float32) {
			node, err := l.build(g)
			require.NoError(t, err)
			require.NoError(t, g.Compile(node))
			return lossAndGrads(t, m, g)
		}
		plainValue, plainGrads := run(plain, plainLoss)
		value, grads := run(g, loss)
		assert.InDelta(t, plainValue, value, 1e-5, "masked %v: loss", masked)
		worst, norm := 0.0, 0.0
		for name, want := range plainGrads {
			got := grads[name]
			tol := 1e-5
			for _, w := range want {
				tol = math.Max(tol, 1e-4*math.Abs(float64(w)))
				norm = math.Max(norm, math.Abs(float64(w)))
			}
			d := maxAbsDiff(want, got)
			worst = math.Max(worst, d)
			assert.LessOrEqual(t, d, tol, "masked %v: gradient of %s", masked, name)
		}
		t.Logf("masked %v: loss %.7f against %.7f; gradients within %.2g (largest %.3g)", masked, value, plainValue, worst, norm)
		for a := range B {
			p := a / s.Answers
			for j := range s.AnswerLen {
				if loss.mask[a*s.AnswerLen+j] == 0 {
					continue
				}
				row, prow := a*s.AnswerLen+j, a*T+int(lens[p])+j
				assert.InDelta(t, Float32s(plain.Logp)[prow], Float32s(g.Logp)[row], 1e-5, "logp")
				assert.InDelta(t, Float32s(plain.Entropy)[prow], Float32s(g.Entropy)[row], 1e-5, "entropy")
				assert.InDelta(t, Float32s(plain.Values)[prow], Float32s(g.Values)[row], 1e-5, "value")
				assert.LessOrEqual(t, maxAbsDiff(Float32s(plain.Logits)[prow*V:(prow+1)*V], Float32s(g.Logits)[row*V:(row+1)*V]), 1e-5, "logits")
			}
		}
		if masked {
			continue
		}
		// Forward only, after the backward: the same log-probs.
		before := append([]float32(nil), Float32s(g.Logp)...)
		require.NoError(t, g.Forward())
		assert.Equal(t, before, Float32s(g.Logp), "Forward recomputes Run's outputs")
	}
}

// TestPrefixInputsChecked: bad sizes, ids, positions and prompt lengths
// are errors that change nothing; a bad shape is refused.
func TestPrefixInputsChecked(t *testing.T) {
	m := newRandomModel(t, tinyConfig(t, 7, 16, true, false), 3, 0.1)
	_, err := m.NewPrefixGraph(PrefixShape{Groups: 1, Prompt: 17, Answers: 1, AnswerLen: 1}, false)
	assert.Error(t, err, "prompt beyond the context")
	_, err = m.NewPrefixGraph(PrefixShape{Groups: 0, Prompt: 4, Answers: 1, AnswerLen: 1}, false)
	assert.Error(t, err)
	s := PrefixShape{Groups: 2, Prompt: 4, Answers: 2, AnswerLen: 3}
	g, err := m.NewPrefixGraph(s, false)
	require.NoError(t, err)
	defer g.Close()
	n, na := s.Rows(), s.Groups*s.Answers*s.AnswerLen
	ok := func() ([]int32, []int32, []int32, []int32) {
		return make([]int32, n), make([]int32, n), []int32{4, 0}, make([]int32, na)
	}
	tok, pos, lens, tgt := ok()
	require.NoError(t, g.SetPrefixInputs(tok, pos, lens, tgt))
	for name, f := range map[string]func(tok, pos, lens, tgt []int32) ([]int32, []int32, []int32, []int32){
		"short tokens": func(tok, pos, lens, tgt []int32) ([]int32, []int32, []int32, []int32) { return tok[1:], pos, lens, tgt },
		"token id": func(tok, pos, lens, tgt []int32) ([]int32, []int32, []int32, []int32) {
			tok[3] = 7
			return tok, pos, lens, tgt
		},
		"position": func(tok, pos, lens, tgt []int32) ([]int32, []int32, []int32, []int32) {
			pos[2] = 16
			return tok, pos, lens, tgt
		},
		"length": func(tok, pos, lens, tgt []int32) ([]int32, []int32, []int32, []int32) {
			lens[1] = 5
			return tok, pos, lens, tgt
		},
		"target": func(tok, pos, lens, tgt []int32) ([]int32, []int32, []int32, []int32) {
			tgt[0] = -1
			return tok, pos, lens, tgt
		},
		"no targets": func(tok, pos, lens, tgt []int32) ([]int32, []int32, []int32, []int32) { return tok, pos, lens, nil },
	} {
		a, b, c, d := f(ok())
		assert.Error(t, g.SetPrefixInputs(a, b, c, d), name)
	}
}

// TestAnswerAttentionMatchesRef: the answers' attention with its products
// over the prompts' keys as matrix products (the fast path) against the
// plain loops, forward and backward, for prompts of every length from 0
// to full.
func TestAnswerAttentionMatchesRef(t *testing.T) {
	a := prefixAttention{sh: PrefixShape{Groups: 4, Prompt: 11, Answers: 3, AnswerLen: 4}, c: 16, heads: 2}
	rng := rand.New(rand.NewPCG(5, 6))
	n, C := a.sh.Rows(), a.c
	qkv, dout := make([]float32, n*3*C), make([]float32, n*C)
	for i := range qkv {
		qkv[i] = float32(rng.NormFloat64())
	}
	for i := range dout {
		dout[i] = float32(rng.NormFloat64())
	}
	lens := []int32{11, 0, 1, 6}
	_, na := a.attLens()
	out, outRef := make([]float32, n*C), make([]float32, n*C)
	att, attRef := make([]float32, na), make([]float32, na)
	require.NoError(t, a.answerAttention(qkv, lens, out, att))
	a.answerAttentionRef(qkv, lens, outRef, attRef)
	np := a.sh.promptRows()
	assert.LessOrEqual(t, maxAbsDiff(outRef[np*C:], out[np*C:]), 1e-5, "forward")
	d, dRef := make([]float32, n*3*C), make([]float32, n*3*C)
	require.NoError(t, a.answerAttentionBackward(qkv, lens, att, dout, d, make([]float32, a.block()*a.keys())))
	a.answerAttentionBackwardRef(qkv, lens, attRef, dout, dRef)
	assert.LessOrEqual(t, maxAbsDiff(dRef, d), 1e-5, "backward")
	nonzero := 0
	for _, x := range d[:np*3*C] {
		if x != 0 {
			nonzero++
		}
	}
	assert.Positive(t, nonzero, "the answers' gradient reaches the prompts' keys and values")
}

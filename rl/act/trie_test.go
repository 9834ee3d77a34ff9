package act

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/model"
	"arew/rl"
	"arew/tasks"
	"arew/tasks/textworld"
)

// randomLogits is a logits source for decode: every row drawn afresh,
// N(0, scale²), whatever token was fed; the feed is recorded.
type randomLogits struct {
	rng   *rand.Rand
	v     int
	scale float64
	fed   []tasks.Token
}

func (r *randomLogits) row() []float32 {
	z := make([]float32, r.v)
	for j := range z {
		z[j] = float32(r.rng.NormFloat64() * r.scale)
	}
	return z
}

func (r *randomLogits) feed(tok tasks.Token) ([]float32, error) {
	r.fed = append(r.fed, tok)
	return r.row(), nil
}

func TestTrieNext(t *testing.T) {
	v := newFixture(t).env.Vocab
	tr := NewTrie([][]tasks.Token{words(v, "go to fridge 1"), words(v, "go to shelf 2"), words(v, "open fridge 1"),
		words(v, "go to fridge 1"), nil})
	next := func(prefix string) string { return v.Decode(tr.Next(words(v, prefix))) }
	assert.ElementsMatch(t, words(v, "go open"), tr.Next(nil), "the first tokens")
	assert.Equal(t, "to", next("go"), "forced")
	assert.ElementsMatch(t, words(v, "fridge shelf"), tr.Next(words(v, "go to")))
	assert.Equal(t, "<eot>", next("go to shelf 2"), "a command ends with EOT")
	assert.Equal(t, "", next("go to shelf 1"), "off the tree")
	assert.Equal(t, "", next("go to shelf 2 open"), "past the end")
	assert.Len(t, tr.nodes, 1+5+3+4, "root, go to fridge 1 <eot>, shelf 2 <eot>, open fridge 1 <eot>: duplicates merged, the empty command skipped")
	assert.Nil(t, NewTrie(nil).Next(nil), "no command, nothing allowed")
}

// The property the decoder exists for: under the trie of a state's
// listed commands, whatever the logits (random, and scaled up to ±40 so
// that a disallowed token is often the model's favourite), greedy or
// sampled, decode writes one of the listed commands, ends it with EOT
// within the budget, and never feeds a token the trie did not allow.
func TestTrieDecoderWritesOnlyAdmissibleCommands(t *testing.T) {
	f := newFixture(t)
	v := f.env.Vocab
	rng := rand.New(rand.NewPCG(3, 4))
	greedy, sampled := &model.Sampler{Greedy: true}, &model.Sampler{Temperature: 1}
	scratch := make([]float32, v.Size())
	seen := map[string]bool{}
	for trial := range 400 {
		s := f.pairs[trial%len(f.pairs)].State
		c := f.env.Constraint(DecodeTrie, s, 16)
		src := &randomLogits{rng: rng, v: v.Size(), scale: []float64{1, 5, 40}[trial%3]}
		smp := []*model.Sampler{greedy, sampled}[trial%2]
		out, finished, err := decode(src.row(), src.feed, smp, c, 17, rng, scratch)
		require.NoError(t, err)
		require.True(t, finished, "trial %d: every path of the trie ends with EOT", trial)
		assert.True(t, textworld.Contains(s.Admissible, out), "trial %d: %q is listed", trial, v.Decode(out))
		assert.Equal(t, out, src.fed, "every token written was fed, nothing else")
		seen[v.Decode(out)] = true
	}
	assert.Greater(t, len(seen), 20, "and the decoder reaches many of them")
}

// A trie of one command forces every token: whatever the logits the
// command comes out, each token with probability 1 (masked log-prob 0),
// even when EOT or another token is the model's favourite.
func TestSingleCommandTrieIsForced(t *testing.T) {
	v := newFixture(t).env.Vocab
	cmd := words(v, "put apple 1 in fridge 1")
	tr := NewTrie([][]tasks.Token{cmd})
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 50 {
		src := &randomLogits{rng: rng, v: v.Size(), scale: 30}
		first := src.row()
		first[tasks.EOT] = 1e3 // the model wants to stop at once
		out, finished, err := decode(first, src.feed, &model.Sampler{Temperature: 1}, tr, 16, rng, make([]float32, v.Size()))
		require.NoError(t, err)
		assert.True(t, finished)
		assert.Equal(t, cmd, out, "trial %d", trial)
	}
	for i := range len(cmd) + 1 {
		allowed := tr.Next(cmd[:i])
		require.Len(t, allowed, 1, "prefix of %d tokens", i)
		lp := MaskedLogSoftmax((&randomLogits{rng: rng, v: v.Size(), scale: 30}).row(), allowed)
		assert.Zero(t, lp[allowed[0]], "log 1")
	}
}

// The renormalised log-probs: exp sums to 1 over the allowed tokens, the
// others get −Inf, and they are the log-probs model.Sampler reports on the
// logits rl.MaskLogits masks (what the decoder and the RL stage record),
// to float rounding.
func TestMaskedLogSoftmaxSumsToOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const V = 60
	for trial := range 200 {
		src := &randomLogits{rng: rng, v: V, scale: []float64{0.5, 4, 20}[trial%3]}
		z := src.row()
		var allowed []tasks.Token
		for j := range V {
			if rng.IntN(4) == 0 || (j == V-1 && len(allowed) == 0) {
				allowed = append(allowed, tasks.Token(j))
			}
		}
		lp := MaskedLogSoftmax(z, allowed)
		sum := 0.0
		in := map[int]bool{}
		for _, a := range allowed {
			sum += math.Exp(lp[a])
			in[int(a)] = true
		}
		assert.InDelta(t, 1, sum, 1e-12, "trial %d", trial)
		for j := range V {
			if !in[j] {
				assert.True(t, math.IsInf(lp[j], -1))
			}
		}
		masked, err := rl.MaskLogits(make([]float32, V), z, allowed)
		require.NoError(t, err)
		s := model.Sampler{Temperature: 1}
		for range 5 {
			got, err := s.Sample(rng, masked)
			require.NoError(t, err)
			require.True(t, in[int(got.Token)], "sampled inside the set")
			assert.InDelta(t, lp[got.Token], got.LogProb, 1e-5)
		}
		best, err := (&model.Sampler{Greedy: true}).Sample(nil, masked)
		require.NoError(t, err)
		for _, a := range allowed {
			assert.GreaterOrEqual(t, z[best.Token], z[a], "greedy takes the best allowed token")
		}
	}
}

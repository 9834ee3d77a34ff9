package act

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/model"
	"arew/rl"
	"arew/tasks"
	"arew/tasks/textworld"
)

// Each environment's grammar (its Grammar, compiled into Env.Grammar) is
// its parser: every command decoded under the grammar from random logits
// parses; every command listed at the states of random play, and every
// expert action, is in the grammar; and on those commands mutated at
// random (a word replaced, dropped or added) the grammar and the parser
// agree both ways.
func TestGrammarIsTheParser(t *testing.T) {
	for _, name := range []string{"alfworld", "webshop", "sciworld"} {
		t.Run(name, func(t *testing.T) {
			env, err := NewEnv(name, nil)
			require.NoError(t, err)
			v, g := env.Vocab, env.Grammar
			parses := func(a []tasks.Token) bool { return env.wellFormed(a) }
			rng := rand.New(rand.NewPCG(11, 12))

			scratch := make([]float32, v.Size())
			for trial := range 300 {
				src := &randomLogits{rng: rng, v: v.Size(), scale: []float64{1, 10}[trial%2]}
				out, finished, err := decode(src.row(), src.feed, &model.Sampler{Temperature: 1}, grammarAt{g, 16}, 17, rng, scratch)
				require.NoError(t, err)
				require.True(t, finished, "the grammar always leaves room to finish")
				assert.True(t, parses(out), "%q parses", v.Decode(out))
				assert.True(t, g.Match(out))
			}

			var listed [][]tasks.Token
			for i := range 6 {
				e, err := env.New(textworld.Train, i)
				require.NoError(t, err)
				pol := []textworld.Policy{textworld.RandomAdmissible{}, textworld.Expert{}}[i%2]
				tr, err := textworld.Play(e, pol, textworld.History, rng)
				require.NoError(t, err)
				for _, st := range tr.Steps {
					listed = append(listed, st.State.Admissible...)
					listed = append(listed, st.Action)
				}
			}
			for _, a := range listed {
				require.True(t, g.Match(a), "%q is in the grammar", v.Decode(a))
				require.True(t, parses(a))
			}

			all := v.Words()[tasks.EOT+1:]
			word := func() tasks.Token { return v.ID(all[rng.IntN(len(all))]) }
			agree, accepted := 0, 0
			for range 3000 {
				a := slices.Clone(listed[rng.IntN(len(listed))])
				switch i := rng.IntN(len(a)); rng.IntN(3) {
				case 0:
					a[i] = word()
				case 1:
					a = slices.Delete(a, i, i+1)
				default:
					a = slices.Insert(a, i, word())
				}
				if g.Match(a) == parses(a) {
					agree++
				} else {
					t.Errorf("%q: grammar %v, parser %v", v.Decode(a), g.Match(a), parses(a))
				}
				if parses(a) {
					accepted++
				}
			}
			t.Logf("%d listed commands; %d of 3000 mutations agree, %d of them commands", len(listed), agree, accepted)
			assert.Positive(t, accepted, "the mutations reach both sides")
		})
	}
}

func TestParseDecoding(t *testing.T) {
	for s, want := range map[string]Decoding{"": DecodeTrie, "trie": DecodeTrie, "grammar": DecodeGrammar, "free": DecodeFree} {
		d, err := ParseDecoding(s)
		require.NoError(t, err, s)
		assert.Equal(t, want, d)
		if s != "" {
			assert.Equal(t, s, d.String())
		}
	}
	for _, s := range []string{"Trie", "constrained", " free"} {
		_, err := ParseDecoding(s)
		assert.ErrorContains(t, err, `decoder must be "trie", "grammar" or "free"`, s)
	}
	cfg := DefaultConfig()
	assert.Equal(t, "trie", cfg.Decoder, "the trie by default")
	cfg.Decoder = "beam"
	assert.ErrorContains(t, cfg.Validate(), `got "beam"`)
}

// The RL stage's task under a constraint is an rl.MaskedTask whose
// episodes allow what the constraint allows at their state; free, it is
// not masked.
func TestActionTaskIsMaskedUnderAConstraint(t *testing.T) {
	f := newFixture(t)
	for _, d := range []Decoding{DecodeTrie, DecodeGrammar, DecodeFree} {
		task, err := ActionTask(f.env, AccuracyOnly(), d, 8, f.pairs, nil)
		require.NoError(t, err)
		mt, ok := task.(rl.MaskedTask)
		require.True(t, ok)
		assert.Equal(t, d != DecodeFree, mt.Masked(), d.String())
		ep, err := task.NewEpisode(tasks.Train, 1)
		require.NoError(t, err)
		got := ep.(rl.MaskedEpisode).Allowed(nil)
		if c := f.env.Constraint(d, f.pairs[1].State, 8); c != nil {
			assert.Equal(t, c.Next(nil), got, d.String())
			assert.Equal(t, c.Next(f.pairs[1].Expert[:1]), ep.(rl.MaskedEpisode).Allowed(f.pairs[1].Expert[:1]))
		} else {
			assert.Nil(t, got)
		}
	}
}

// A fresh model played online: decoded free its actions are mostly not
// commands; under the grammar every action is one (malformed 0), but many
// do not apply; under the trie every action is listed, so nothing is ever
// answered "nothing happens" and no failure can repeat. Next-action
// accuracy runs under the same decoders.
func TestOnlineUnderEachDecoder(t *testing.T) {
	f := newFixture(t)
	env := f.env
	m := tinyModel(t, env.Vocab.Size(), AutoContext(env, f.pairs, 8))
	res := map[Decoding]Online{}
	for _, d := range []Decoding{DecodeFree, DecodeGrammar, DecodeTrie} {
		on, err := EvaluateOnline(m, env, d, textworld.Test, 2, textworld.History, 8)
		require.NoError(t, err)
		assert.Equal(t, d.String(), on.Decoder)
		res[d] = on
		acc, err := NextActionAccuracy(m, env, d, f.pairs, 8)
		require.NoError(t, err)
		t.Logf("%s: success %.2f, malformed %.2f, nothing happens %.2f, repeated failures %.1f, next action %.2f",
			d, on.Success, on.Malformed, on.Inapplicable, on.RepeatedFailures, acc)
	}
	assert.Greater(t, res[DecodeFree].Malformed, 0.5)
	assert.Zero(t, res[DecodeGrammar].Malformed)
	assert.Positive(t, res[DecodeGrammar].Inapplicable)
	assert.Zero(t, res[DecodeTrie].Malformed)
	assert.Zero(t, res[DecodeTrie].Inapplicable)
	assert.Zero(t, res[DecodeTrie].RepeatedFailures)
	assert.Zero(t, res[DecodeTrie].PolicyFailures)
}

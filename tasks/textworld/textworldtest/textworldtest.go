// Package textworldtest holds the checks that the text worlds' tests
// (alfworld, sciworld, webshop) share: the config and step fuzz
// contracts, the expert's success, inapplicable actions, the expert's
// recovery from random prefixes, the expert data's size, the expert's
// speed, and the digest that pins an environment's games (SplitsDigest).
package textworldtest

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
	"arew/tasks/textworld"
)

// Turns splits fuzz bytes into agent turns at 0xFE, each other byte a
// token by tok.
func Turns(data []byte, tok func(b byte) tasks.Token) [][]tasks.Token {
	turns := [][]tasks.Token{{}}
	for _, b := range data {
		if b == 0xFE {
			turns = append(turns, nil)
			continue
		}
		turns[len(turns)-1] = append(turns[len(turns)-1], tok(b))
	}
	return turns
}

// PlayFuzz plays turns on env in rotation, every third turn the expert's
// action instead, until the episode ends: no step fails, every
// observation token lies past EOT inside the vocabulary, and the episode
// ends within its MaxSteps.
func PlayFuzz(t *testing.T, env textworld.Env, turns [][]tasks.Token) {
	for k := 0; !env.Done(); k++ {
		a := turns[k%len(turns)]
		if k%3 == 2 {
			a = env.Expert()
		}
		obs, err := env.Step(a)
		require.NoError(t, err)
		for _, tok := range obs {
			require.True(t, tok > tasks.EOT && int(tok) < env.Vocab().Size())
		}
	}
	require.LessOrEqual(t, env.Steps(), env.MaxSteps())
}

// Recoveries runs textworld.CheckRecovery three times over games 0 to
// games−1 of newEnv, each after 1–8 random admissible actions (one
// stream, PCG(11, 12)), calls failed with every game the expert did not
// then solve, and returns how many recoveries it tested and solved.
func Recoveries(t *testing.T, newEnv func(int) (textworld.Env, error), games int, failed func(e textworld.Env, game int)) (tested, solved int) {
	rng := rand.New(rand.NewPCG(11, 12))
	for range 3 {
		for i := range games {
			e, err := newEnv(i)
			require.NoError(t, err)
			r, err := textworld.CheckRecovery(e, 1+rng.IntN(8), rng)
			require.NoError(t, err, "game %d", i)
			switch {
			case !r.Tested:
				continue
			case r.Success:
				solved++
			default:
				failed(e, i)
			}
			tested++
		}
	}
	t.Logf("%d recoveries tested, %d solved", tested, solved)
	return tested, solved
}

// BenchmarkExpert times what a rollout does per step on the first n test
// instances of w: render the state as a prompt (admissible list
// included), ask the planner, step. It reports steps per second.
func BenchmarkExpert(b *testing.B, w textworld.World, n int) {
	newEnv := w.Env(textworld.Test)
	steps := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e, err := newEnv(i % n)
		if err != nil {
			b.Fatal(err)
		}
		var past []textworld.Turn
		for !e.Done() {
			s := textworld.Snapshot(e, past, textworld.History)
			_ = s.Tokens(w.Vocab())
			a := e.Expert()
			if _, err := e.Step(a); err != nil {
				b.Fatal(err)
			}
			past = append(past, textworld.Turn{Obs: s.Obs, Action: a})
			steps++
		}
	}
	b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
}

// FuzzFromJSON holds a world's FromJSON to its contract: any configuration
// text builds a world or returns an error, and a world plays the expert's
// first step of its first training game.
func FuzzFromJSON[W textworld.World](f *testing.F, fromJSON func(json.RawMessage) (W, error)) {
	for _, s := range []string{`{}`, `{"Train":3,"Test":2}`, `{"MaxSteps":-1}`, `{"Seed":7}`, `[`, `{"Train":"x"}`, `{"Train":1e12}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := fromJSON([]byte(s))
		if err != nil {
			return
		}
		e, err := w.Env(textworld.Train)(0)
		if err == nil && !e.Done() {
			_, _ = e.Step(e.Expert())
		}
	})
}

// ExpertSolves plays the expert on games 0 … n−1 of split of w: each of
// its actions is listed as admissible and not answered NothingHappens,
// every game ends in success with reward 1, and the expert has no action
// left. It logs the mean expert length.
func ExpertSolves(t *testing.T, w textworld.World, split textworld.Split, n int) {
	nothing := w.Vocab().Encode(textworld.NothingHappens...)
	steps := 0
	for i := range n {
		e, err := w.Env(split)(i)
		require.NoError(t, err)
		for !e.Done() {
			a := e.Expert()
			require.True(t, textworld.Contains(e.Admissible(), a), "%v %d: expert %q not admissible", split, i, w.Vocab().Decode(a))
			obs, err := e.Step(a)
			require.NoError(t, err)
			require.False(t, textworld.Equal(obs, nothing), "%v %d: %q", split, i, w.Vocab().Decode(a))
		}
		require.True(t, e.Success(), "%v %d: expert failed", split, i)
		assert.Equal(t, 1.0, e.Reward())
		assert.Nil(t, e.Expert())
		steps += e.Steps()
	}
	t.Logf("%v: %d games, mean expert length %.2f", split, n, float64(steps)/float64(n))
}

// InapplicableChangesNothing plays games 0 … n−1 of the train split of w
// with the actions act picks (mostly spoilt listed ones): one that
// IsAdmissible rejects is answered NothingHappens and leaves state(env) as
// it was, an admissible one never is. A listed action is admissible and,
// where listedOnly, only a listed one. Every game ends within its
// MaxSteps, and a step after the end fails. It returns how many rejected
// actions it checked.
func InapplicableChangesNothing(t *testing.T, w textworld.World, n int, listedOnly bool, act func(e textworld.Env, adm [][]tasks.Token) []tasks.Token, state func(textworld.Env) string) int {
	nothing := w.Vocab().Encode(textworld.NothingHappens...)
	checked := 0
	for i := range n {
		e, err := w.Env(textworld.Train)(i)
		require.NoError(t, err)
		for !e.Done() {
			adm := e.Admissible()
			a := act(e, adm)
			ok, listed := e.IsAdmissible(a), textworld.Contains(adm, a)
			if listed || listedOnly {
				require.Equal(t, listed, ok, "%q", w.Vocab().Decode(a))
			}
			before := state(e)
			obs, err := e.Step(a)
			require.NoError(t, err)
			if ok {
				assert.NotEqual(t, nothing, obs)
			} else {
				checked++
				assert.Equal(t, nothing, obs)
				assert.Equal(t, before, state(e))
			}
		}
		assert.LessOrEqual(t, e.Steps(), e.MaxSteps())
		_, err = e.Step(nil)
		assert.Error(t, err)
	}
	return checked
}

// LogPairs logs the size of an expert dataset (textworld.Dataset): its
// pairs, the mean admissible list and the prompt tokens per state.
func LogPairs(t *testing.T, split textworld.Split, pairs []textworld.Pair, v *tasks.Vocab) {
	adm, toks, longest := 0, 0, 0
	for _, p := range pairs {
		adm += len(p.State.Admissible)
		n := len(p.State.Tokens(v))
		toks, longest = toks+n, max(longest, n)
	}
	t.Logf("%-8v pairs %d  mean admissible %.1f  prompt tokens mean %.0f max %d", split, len(pairs), float64(adm)/float64(len(pairs)), float64(toks)/float64(len(pairs)), longest)
}

// Parse is a case of a parser's table: the text, and the action it parses
// to, or Bad.
type Parse[A any] struct {
	Text string
	Want A
	Bad  bool
}

// CheckParse runs parse on every case: a Bad one fails, any other gives
// its Want, which renders back to the text's words.
func CheckParse[A interface{ Words() []string }](t *testing.T, parse func([]string) (A, error), cases []Parse[A]) {
	for _, tc := range cases {
		a, err := parse(textworld.Words(tc.Text))
		if tc.Bad {
			assert.Error(t, err, tc.Text)
			continue
		}
		require.NoError(t, err, tc.Text)
		assert.Equal(t, tc.Want, a, tc.Text)
		assert.Equal(t, textworld.Words(tc.Text), a.Words(), tc.Text)
	}
}

// FuzzParse: any text parses or fails cleanly, and what parses renders
// back to the same words.
func FuzzParse[A interface{ Words() []string }](f *testing.F, parse func([]string) (A, error), seeds ...string) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w := textworld.Words(s)
		if a, err := parse(w); err == nil {
			assert.Equal(t, w, a.Words())
		}
	})
}

// FuzzStep feeds arbitrary token ids (Turns with tok, from the fuzz's
// bytes) to Step on the test game index mod games of w, interleaved with
// expert actions (PlayFuzz); the reward stays in [0, 1]. The fuzz's
// arguments are (data []byte, index uint8).
func FuzzStep(f *testing.F, w textworld.World, games int, tok func(data []byte, b byte) tasks.Token) {
	f.Fuzz(func(t *testing.T, data []byte, index uint8) {
		e, err := w.Env(textworld.Test)(int(index) % games)
		require.NoError(t, err)
		PlayFuzz(t, e, Turns(data, func(b byte) tasks.Token { return tok(data, b) }))
		assert.True(t, e.Reward() >= 0 && e.Reward() <= 1)
	})
}

package textworld_test

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
	_ "arew/tasks/alfworld"
	_ "arew/tasks/sciworld"
	"arew/tasks/textworld"
	_ "arew/tasks/webshop"
)

// TestRegistry: the three environments register themselves, build at their
// defaults, and refuse configs past the serving bounds or unknown fields.
func TestRegistry(t *testing.T) {
	require.Equal(t, []string{"alfworld", "sciworld", "webshop"}, textworld.Names())
	for _, name := range textworld.Names() {
		assert.True(t, textworld.Registered(name))
		w, err := textworld.NewWorld(name, nil)
		require.NoError(t, err, name)
		assert.NotEmpty(t, w.Rules(), name)
		env, err := w.Env(textworld.Train)(0)
		require.NoError(t, err, name)
		assert.False(t, env.Done(), name)
		for _, bad := range []string{`{"Train": 1001}`, `{"MaxSteps": 101}`, `{"Nope": 1}`, `{"Train": -1}`, `[1]`} {
			_, err := textworld.NewWorld(name, json.RawMessage(bad))
			assert.Error(t, err, "%s %s", name, bad)
		}
		_, err = textworld.NewWorld(name, json.RawMessage(`{"Train": 1000, "MaxSteps": 100}`))
		assert.NoError(t, err, name)
	}
	_, err := textworld.NewWorld("alfworld", json.RawMessage(`{"Layouts": 401}`))
	assert.ErrorContains(t, err, "Layouts")
	_, err = textworld.NewWorld("nope", nil)
	assert.ErrorContains(t, err, "unknown text environment")
	assert.False(t, textworld.Registered("flodial-easy"))
}

// TestReadCommand: every admissible command of random plays on the three
// environments reads back as itself however a model dresses it (tags,
// labels, Markdown, upper case, a full stop, brackets against their words,
// a last line after thinking); unknown words, too many words and empty
// replies are malformed and read as <pad>, which every environment answers
// "nothing happens .".
func TestReadCommand(t *testing.T) {
	dress := []func(string) string{
		func(s string) string { return s },
		func(s string) string { return "I think so.\n<answer>" + s + "</answer>" },
		func(s string) string { return "<ANSWER> **" + strings.ToUpper(s) + "**" },
		func(s string) string { return "Let me see.\n\nAction: " + s + "." },
		func(s string) string { return "`" + strings.NewReplacer("[ ", "[", " ]", "]").Replace(s) + "`" },
		func(s string) string { return "### " + s + "\n```" },
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, name := range textworld.Names() {
		w, err := textworld.NewWorld(name, nil)
		require.NoError(t, err)
		v := w.Vocab()
		for _, word := range v.Words()[tasks.EOT+1:] {
			assert.False(t, strings.ContainsAny(word, "*#`\"[]") && word != "[" && word != "]", "%s: word %q holds a mark the reader drops", name, word)
		}
		for i := range 5 {
			env, err := w.Env(textworld.Train)(i)
			require.NoError(t, err)
			for !env.Done() {
				adm := env.Admissible()
				require.NotEmpty(t, adm)
				for _, a := range adm {
					text := v.Decode(a)
					for j, d := range dress {
						c := textworld.ReadCommand(v, d(text))
						require.False(t, c.Malformed, "%s %q dressed %d: %s", name, text, j, c.Reason)
						require.Equal(t, a, c.Tokens, "%s %q dressed %d", name, text, j)
					}
				}
				_, err := env.Step(adm[rng.IntN(len(adm))])
				require.NoError(t, err)
			}
		}
		for _, bad := range []struct{ text, reason string }{
			{"1 xyzzy", `unknown word "xyzzy"`},
			{"", "no command"},
			{"<answer></answer>", "no command"},
			{strings.Repeat("1 ", textworld.MaxCommandWords+1), "words"},
		} {
			c := textworld.ReadCommand(v, bad.text)
			assert.True(t, c.Malformed, "%s %q", name, bad.text)
			assert.Contains(t, c.Reason, bad.reason)
			assert.Equal(t, []tasks.Token{tasks.Pad}, c.Tokens)
			env, err := w.Env(textworld.Test)(0)
			require.NoError(t, err)
			assert.False(t, env.IsAdmissible(c.Tokens))
			obs, err := env.Step(c.Tokens)
			require.NoError(t, err)
			assert.Equal(t, v.Encode(textworld.NothingHappens...), obs, "%s", name)
			assert.Equal(t, 1, env.Steps())
		}
	}
}

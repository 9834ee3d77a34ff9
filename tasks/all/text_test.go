package all

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
)

// fastConfig keeps PE's particle set small; it changes nothing checked here.
func fastConfig(name string) json.RawMessage {
	if strings.HasPrefix(name, "pe-") {
		return json.RawMessage(`{"Particles": 64}`)
	}
	return nil
}

// actionWords are the tokens a text move can name: the vocabulary minus
// the structure tokens and "<answer>", which text reads as the tag.
func actionWords(v *tasks.Vocab) []tasks.Token {
	var out []tasks.Token
	for id, w := range v.Words() {
		if tasks.Token(id) > tasks.EOT && w != "<answer>" {
			out = append(out, tasks.Token(id))
		}
	}
	return out
}

// dress writes a move's canonical text the ways a model might.
func dress(text string, rng *rand.Rand) string {
	if text == "" {
		return []string{"<answer></answer>", "Nothing to add.\n<answer> </answer>"}[rng.IntN(2)]
	}
	switch rng.IntN(8) {
	case 5:
		return "The move:\n```\n" + text + "\n```\n"
	case 6:
		return "### **Move:** " + text
	case 0:
		return "Let me think about the evidence.\n<answer>" + text + "</answer>"
	case 1:
		return "Reasoning first.\n\nMove: " + text + ".\n"
	case 2:
		return strings.ToUpper(text)
	case 3:
		return strings.ReplaceAll(text, " ", ", ")
	case 4:
		return "<answer>draft</answer> on second thought <answer>\n" + text
	}
	return text
}

// TestTextEqualsTokens plays the same moves — the strong policy's, mixed
// with random words, which are mostly malformed — through a token episode
// and through a text episode of the same instance, the text dressed in
// free-form ways: observations, steps and measures must be equal.
func TestTextEqualsTokens(t *testing.T) {
	type setting struct {
		name string
		cfg  json.RawMessage
	}
	var settings []setting
	for _, name := range tasks.Names() {
		settings = append(settings, setting{name, fastConfig(name)})
	}
	// The echo and style tokens of flodial, and the style tokens of every
	// task that has the shared locked mechanism, render and parse like the
	// rest.
	settings = append(settings, setting{"flodial-easy", json.RawMessage(`{"Echo": true, "Style": "hasty"}`)},
		setting{"pe-g-s2", json.RawMessage(`{"Particles": 64, "Style": "careful"}`)},
		setting{"mediq", json.RawMessage(`{"Style": "hasty"}`)})
	for _, st := range settings {
		name := st.name
		t.Run(name+string(st.cfg), func(t *testing.T) {
			task, err := tasks.New(name, st.cfg)
			require.NoError(t, err)
			face, err := tasks.TextFaceOf(task)
			require.NoError(t, err)
			policy, err := task.Scripted(tasks.PolicySpec{Kind: "strong"})
			require.NoError(t, err)
			words := actionWords(task.Vocab())
			for i := 0; i < 12; i++ {
				byTokens, err := task.NewEpisode(tasks.Test, i)
				require.NoError(t, err)
				inner, err := task.NewEpisode(tasks.Test, i)
				require.NoError(t, err)
				byText := tasks.NewTextEpisode(face, inner)
				assert.Equal(t, face.Render(byTokens.Prompt()), byText.Observation())
				rng := rand.New(rand.NewPCG(7, uint64(i)))
				for turn := 0; !byTokens.Done(); turn++ {
					require.Less(t, turn, 200)
					next := byTokens.Next()
					require.Equal(t, next, byText.Next())
					var action []tasks.Token
					if rng.IntN(3) > 0 {
						action, err = policy.Act(byTokens, rng)
						require.NoError(t, err)
					} else {
						for n := rng.IntN(next.MaxTokens); n > 0; n-- {
							action = append(action, words[rng.IntN(len(words))])
						}
					}
					obs, step, err := byTokens.Step(action)
					require.NoError(t, err)
					text := dress(face.Format(action), rng)
					ts, err := byText.StepText(text)
					require.NoError(t, err)
					require.False(t, ts.Parsed.Malformed, "%q: %s", text, ts.Parsed.Reason)
					assert.Equal(t, fmt.Sprint(action), fmt.Sprint(ts.Parsed.Tokens), text)
					assert.Equal(t, obs, ts.ObsTokens)
					assert.Equal(t, face.Render(obs), ts.Observation)
					assert.Equal(t, fmt.Sprintf("%+v", step), fmt.Sprintf("%+v", ts.Step))
				}
				require.True(t, byText.Done())
				// %+v prints NaN as NaN, so tasks without beliefs compare too.
				assert.Equal(t, fmt.Sprintf("%+v", byTokens.Steps()), fmt.Sprintf("%+v", byText.Steps()))
				assert.Equal(t, fmt.Sprintf("%+v", byTokens.Measures()), fmt.Sprintf("%+v", byText.Measures()))
				_, err = byText.StepText("q0")
				assert.Error(t, err, "a step after the end is an error, as for tokens")
			}
		})
	}
}

// TestPadIsMalformed: a malformed text becomes the action [Pad]; on every
// turn of every task that must be judged a malformed step with critique
// −1, the token protocol's penalty.
func TestPadIsMalformed(t *testing.T) {
	for _, name := range tasks.Names() {
		t.Run(name, func(t *testing.T) {
			task, err := tasks.New(name, fastConfig(name))
			require.NoError(t, err)
			policy, err := task.Scripted(tasks.PolicySpec{Kind: "strong"})
			require.NoError(t, err)
			for i := 0; i < 2; i++ {
				for k := 0; ; k++ {
					ep, err := task.NewEpisode(tasks.Train, i)
					require.NoError(t, err)
					rng := rand.New(rand.NewPCG(3, uint64(i)))
					for j := 0; j < k && !ep.Done(); j++ {
						a, err := policy.Act(ep, rng)
						require.NoError(t, err)
						_, _, err = ep.Step(a)
						require.NoError(t, err)
					}
					if ep.Done() {
						break
					}
					_, s, err := ep.Step([]tasks.Token{tasks.Pad})
					require.NoError(t, err)
					assert.True(t, s.Malformed, "turn %d", k)
					assert.Equal(t, int8(-1), s.Z, "turn %d", k)
				}
			}
		})
	}
}

// TestSystemPrompts: every registered task has a text face whose system
// prompt carries the shared answer rules and whose prompt renders.
func TestSystemPrompts(t *testing.T) {
	for _, name := range tasks.Names() {
		task, err := tasks.New(name, fastConfig(name))
		require.NoError(t, err)
		face, err := tasks.TextFaceOf(task)
		require.NoError(t, err, name)
		assert.Contains(t, face.System(), tasks.AnswerRules, name)
		ep, err := task.NewEpisode(tasks.Test, 0)
		require.NoError(t, err)
		assert.NotContains(t, face.Render(ep.Prompt()), "<bos>", name)
		for _, w := range task.Vocab().Words() {
			assert.False(t, strings.ContainsAny(w, "*# \t\n,;()[]{}\"'`"), "%s: the parser drops or splits on a character of %q", name, w)
		}
	}
}

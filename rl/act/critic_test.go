package act

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/rl"
	"arew/tasks"
	"arew/tasks/textworld"
)

func TestAlternativesDropsExpertDuplicatesAndMalformed(t *testing.T) {
	f := newFixture(t)
	v := f.env.Vocab
	expert := words(v, "go to fridge 1")
	a, b := words(v, "go to cabinet 1"), words(v, "look")
	var st CollectStats
	junk := words(v, "fridge go")
	samples := [][]tasks.Token{a, expert, nil, a, {tasks.BOS}, b, {}, junk}
	kept := Alternatives(v, expert, samples, nil, &st)
	assert.Equal(t, [][]tasks.Token{a, b, junk}, kept)
	assert.Equal(t, CollectStats{Sampled: 8, Kept: 3, Expert: 1, Duplicate: 1, Malformed: 3}, st)
	st = CollectStats{}
	kept = Alternatives(v, expert, samples, f.env.wellFormed, &st)
	assert.Equal(t, [][]tasks.Token{a, b}, kept, "with the grammar check")
	assert.Equal(t, CollectStats{Sampled: 8, Kept: 2, Expert: 1, Duplicate: 1, Malformed: 4}, st)
}

// TestFormatDataCarriesNoJudgement: π_θ0's format examples show every
// prompt twice, answered 1 and 2, whichever slot holds the expert's action.
func TestFormatDataCarriesNoJudgement(t *testing.T) {
	env, err := NewEnv("alfworld", nil)
	require.NoError(t, err)
	pairs, err := env.ExpertPairs(textworld.Train, 0, 40, textworld.History)
	require.NoError(t, err)
	v := env.Vocab
	trs := FormatData(v, ChoiceSlot, pairs, rand.New(rand.NewPCG(3, 4)))
	require.Len(t, trs, 2*len(pairs), "every alfworld state lists more than the expert's action")
	choose := v.ID("<choose>")
	expertFirst := 0
	for i := 0; i < len(trs); i += 2 {
		one, two := trs[i], trs[i+1]
		for _, tr := range []*rl.Trajectory{one, two} {
			require.NoError(t, tr.Validate())
			n := len(tr.Tokens)
			require.Equal(t, choose, tr.Tokens[n-3])
			require.Equal(t, tasks.EOT, tr.Tokens[n-1])
		}
		n := len(one.Tokens)
		assert.Equal(t, one.Tokens[:n-2], two.Tokens[:n-2], "one prompt")
		assert.Equal(t, []tasks.Token{v.ID("1"), v.ID("2")}, []tasks.Token{one.Tokens[n-2], two.Tokens[n-2]}, "both answers")
		// The expert's slot: the one whose action follows "<bos> action 1 :".
		p := pairs[i/2]
		first := textworld.CriticPrompt(v, p.State, p.Expert, nil)
		k := 4 + len(p.Expert)
		if textworld.Equal(one.Tokens[:k+1], first[:k+1]) {
			expertFirst++
		}
	}
	assert.InDelta(t, 0.5, float64(expertFirst)/float64(len(pairs)), 0.2, "the expert's slot is a coin")
}

// TestChoiceFormatsRoundTrip: in both formats an answer built for a slot
// parses back to that slot, π_θ0's format examples answer each prompt
// with both slots, and an answer in the other format does not parse.
func TestChoiceFormatsRoundTrip(t *testing.T) {
	env, err := NewEnv("alfworld", nil)
	require.NoError(t, err)
	pairs, err := env.ExpertPairs(textworld.Train, 0, 10, textworld.History)
	require.NoError(t, err)
	v := env.Vocab
	assert.Error(t, ChoiceFormat("").Validate())
	assert.Error(t, ChoiceFormat("both").Validate())
	for _, format := range []ChoiceFormat{ChoiceSlot, ChoiceAction} {
		require.NoError(t, format.Validate())
		trs := FormatData(v, format, pairs, rand.New(rand.NewPCG(3, 4)))
		require.Len(t, trs, 2*len(pairs))
		for i, p := range pairs {
			var alt []tasks.Token
			for _, a := range p.State.Admissible {
				if !textworld.Equal(a, p.Expert) {
					alt = a
				}
			}
			c := CriticExample{State: p.State, Expert: p.Expert, Alt: alt, ExpertFirst: i%2 == 0}
			for slot := 1; slot <= 2; slot++ {
				a := format.Answer(v, c, slot)
				assert.LessOrEqual(t, len(a)+1, format.MaxAnswer(c))
				got, err := format.Parse(v, c, a)
				require.NoError(t, err)
				assert.Equal(t, slot, got)
			}
			assert.Equal(t, c.Expert, ChoiceAction.Answer(v, c, c.ExpertSlot()), "the copy of the expert's slot is the expert's action")
			other := ChoiceSlot
			if format == ChoiceSlot {
				other = ChoiceAction
			}
			_, err := format.Parse(v, c, other.Answer(v, c, 1))
			assert.Error(t, err, "%s does not read the other format's answer", format)
			one, two := trs[2*i], trs[2*i+1]
			prompt, _ := format.Prompt(v, c)
			marker := map[ChoiceFormat]string{ChoiceSlot: "<choose>", ChoiceAction: "<act>"}[format]
			assert.Equal(t, v.ID(marker), prompt[len(prompt)-1], "the %s prompt ends with %s", format, marker)
			k := slices.Index(one.Tokens, v.ID("<adm>"))
			require.Positive(t, k)
			k += slices.Index(one.Tokens[k:], v.ID(marker)) + 1 // the answer follows the prompt's last marker
			assert.Equal(t, one.Tokens[:k], two.Tokens[:k], "one prompt")
			assert.NotEqual(t, one.Tokens[k:], two.Tokens[k:], "two answers")
		}
	}
}

// TestCriticDataUnderTheTrieIsListed: D_critic sampled under the trie
// (Run's default decoder) has only listed commands as alternatives, so
// the critic compares two applicable actions and judges their quality,
// not their grammar; even a fresh model's samples are all kept or dropped
// as the expert's or a repeat, none malformed.
func TestCriticDataUnderTheTrieIsListed(t *testing.T) {
	env, err := NewEnv("alfworld", nil)
	require.NoError(t, err)
	m := tinyModel(t, env.Vocab.Size(), 512)
	cfg := DefaultCollect()
	data, st, err := CriticData(m, env, DecodeTrie, textworld.Train, 0, 2, cfg)
	require.NoError(t, err)
	require.NotEmpty(t, data)
	assert.Zero(t, st.Malformed)
	assert.Equal(t, st.Kept, st.Admissible)
	for _, c := range data {
		assert.True(t, c.AltAdmissible)
		assert.True(t, slices.ContainsFunc(c.State.Admissible, func(a []tasks.Token) bool { return textworld.Equal(a, c.Alt) }),
			"%q is listed", env.Vocab.Decode(c.Alt))
	}
}

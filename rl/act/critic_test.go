package act

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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

// TestFormatDataCarriesNoJudgement: π_θ0's format examples answer 1 or 2
// by a coin, whichever slot holds the expert's action.
func TestFormatDataCarriesNoJudgement(t *testing.T) {
	env, err := NewEnv("alfworld", nil)
	require.NoError(t, err)
	pairs, err := env.ExpertPairs(textworld.Train, 0, 40, textworld.History)
	require.NoError(t, err)
	v := env.Vocab
	trs := FormatData(v, pairs, rand.New(rand.NewPCG(3, 4)))
	require.Len(t, trs, len(pairs), "every alfworld state lists more than the expert's action")
	right, one := 0, 0
	choose := v.ID("<choose>")
	for i, tr := range trs {
		require.NoError(t, tr.Validate())
		n := len(tr.Tokens)
		require.Equal(t, choose, tr.Tokens[n-3])
		require.Equal(t, tasks.EOT, tr.Tokens[n-1])
		ans := tr.Tokens[n-2]
		require.Contains(t, []tasks.Token{v.ID("1"), v.ID("2")}, ans)
		if ans == v.ID("1") {
			one++
		}
		// The expert's slot: the one whose action follows "action N :".
		prompt := tr.Tokens[:n-2]
		c1 := CriticExample{State: pairs[i].State, Expert: pairs[i].Expert, ExpertFirst: true}
		first := textworld.CriticPrompt(v, c1.State, pairs[i].Expert, nil)
		expertFirst := len(prompt) >= len(first)-1 && textworld.Equal(prompt[:len(first)-1], first[:len(first)-1])
		if (ans == v.ID("1")) == expertFirst {
			right++
		}
	}
	n := float64(len(trs))
	assert.InDelta(t, 0.5, float64(right)/n, 0.15, "accuracy of the format answers")
	assert.InDelta(t, 0.5, float64(one)/n, 0.15, "share of 1s")
}

package webshop

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks/textworld"
	"arew/tasks/textworld/textworldtest"
)

// FuzzFromJSON: any configuration text builds a world or returns an error
// (textworldtest.FuzzFromJSON).
func FuzzFromJSON(f *testing.F) { textworldtest.FuzzFromJSON(f, FromJSON) }

// TestLargestStoreCountsEveryPage: at the largest PerCategory that
// Validate allows, the broadest searches (every category at once, each
// category, each colour) list every results page without a word outside
// the vocabulary, paging forward to the last page and back; one more
// product per category is refused with an error that says why.
func TestLargestStoreCountsEveryPage(t *testing.T) {
	require.Len(t, categories, 8, "MaxPerCategory counts 8 categories")
	cfg := Config{Seed: 3, PerCategory: MaxPerCategory, Train: 2, Test: 2, MaxSteps: 1000}
	w, err := New(cfg)
	require.NoError(t, err)
	var every []string
	queries := [][]string{}
	for _, c := range categories {
		every = append(every, c.name)
		queries = append(queries, []string{c.name})
	}
	for _, c := range colours {
		queries = append(queries, []string{c})
	}
	queries = append([][]string{every}, queries...)
	require.LessOrEqual(t, len(every), MaxQuery)
	for _, q := range queries {
		e, err := w.NewEnv(textworld.Train, 0)
		require.NoError(t, err)
		search := w.vocab.Encode(Action{Kind: Search, Arg: q}.Words()...)
		pages := 0
		require.NotPanics(t, func() {
			_, err = e.Step(search)
			require.NoError(t, err)
			pages = e.pages()
			for e.pageNo+1 < e.pages() {
				_, err = e.Step(w.vocab.Encode(clickOf(NextPage...).Words()...))
				require.NoError(t, err)
			}
			for e.pageNo > 0 {
				_, err = e.Step(w.vocab.Encode(clickOf(PrevPage...).Words()...))
				require.NoError(t, err)
			}
		}, "search %v", q)
		require.Equal(t, ResultsPage, e.page, "search %v", q)
		if len(q) == len(every) {
			assert.Len(t, e.results, MaxPerCategory*len(categories))
			assert.Equal(t, (len(e.results)+PageSize-1)/PageSize, pages)
			assert.LessOrEqual(t, pages, textworld.MaxNumber)
			assert.Greater(t, (len(e.results)+len(categories)+PageSize-1)/PageSize, textworld.MaxNumber,
				"one more product per category would count a page past the number words")
		}
	}
	cfg.PerCategory++
	_, err = New(cfg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), fmt.Sprintf("PerCategory must lie in [1, %d]", MaxPerCategory))
}

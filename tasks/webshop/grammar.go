package webshop

import (
	"slices"

	"arew/tasks"
	"arew/tasks/textworld"
)

// Grammar is the actions of ParseAction as templates (textworld.Grammar):
//
//	search [ w … ]    1 to MaxQuery words
//	click [ w … ]     one word or more
//
// where w is any word of the vocabulary but a bracket. Every action it
// holds parses, and every action that parses is in it (rl/act
// TestGrammarIsTheParser). The grammar is the form only: a click names a
// button or a product only if the page shows it, and any search is
// admissible on the search page alone.
func (w *World) Grammar() textworld.Grammar {
	var words []string
	for _, x := range w.vocab.Words()[tasks.EOT+1:] {
		if x != "[" && x != "]" {
			words = append(words, x)
		}
	}
	slices.Sort(words)
	one := textworld.One
	return textworld.Grammar{
		{one("search"), one("["), {Words: words, Min: 1, Max: MaxQuery}, one("]")},
		{one("click"), one("["), {Words: words, Min: 1}, one("]")},
	}
}

package webshop

import (
	"arew/tasks"
	"arew/tasks/textworld"
)

var textWords = []string{
	"search", "click", "[", "]", "back", "to", "next", ">", "<", "prev", "buy", "now",
	"i", "need", "a", "that", "is", "and", ",", "in", "color", "size", "price", "at", "most", "dollars",
	"you", "are", "on", "the", "page", ".", "no", "results", "of", ":", "$", "item", "chose", "none",
	"thank", "for", "shopping", "your", "score", "percent",
}

func newVocab(productNames []string) *tasks.Vocab {
	var words []string
	for _, c := range categories {
		words = append(words, c.name)
		words = append(words, c.attrs...)
	}
	words = append(words, colours...)
	words = append(words, sizes...)
	return textworld.NewVocab(textWords, words, productNames)
}

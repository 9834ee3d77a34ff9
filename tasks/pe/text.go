package pe

import (
	"fmt"
	"strings"

	"arew/tasks"
)

// TextFormat is PE's text face (tasks.TextFace): the rules as a system
// prompt, the movie table one movie per line, and short instructions for
// the headers. Moves are the token protocol's words: a query "a1 a3 m6 m7"
// (PE-G) or "m6 m7" (PE-F), a guess "2 2 2 3 0 2".
func (t *Task) TextFormat() tasks.TextFormat {
	c := t.cfg
	d, s, l := c.Dims, c.focusSize(), c.GuessLevels
	query := fmt.Sprintf("two distinct movies A then B, e.g. m%d m%d", 0, c.Movies-1)
	compare := "on all attributes"
	if c.Focus != 0 {
		query = fmt.Sprintf("%d distinct attributes, then two distinct movies A then B, e.g. %s m0 m%d",
			s, strings.Join(tasks.Prefixed("a", s), " "), c.Movies-1)
		compare = "on the attributes you name"
	}
	system := fmt.Sprintf(`You are estimating a user's hidden preferences. The user weighs %d movie attributes a0 to a%d with non-negative weights (typically two or three matter, the rest little). The table below scores %d movies m0 to m%d on each attribute (whole numbers 0 to %d, in attribute order).

The conversation has %d rounds. In each round you first ask the user to compare two movies %s, then state your guess of the weights. The user answers yes (A is better for them), no (B is better) or equal (their advantages balance); repeat means you asked that comparison before (no new evidence), invalid means your move was malformed. The last guess is your final answer: you succeed if its direction is close to the user's weights (cosine above %.2f).

Moves:
- a query: %s
- a guess: exactly %d whole numbers from 0 to %d, one weight per attribute in order a0 to a%d, not all 0; only their direction matters, e.g. %s`,
		d, d-1, c.Movies, c.Movies-1, c.ScoreMax, c.Queries, compare, c.Threshold, query, d, l-1, d-1, exampleGuess(d, l))
	if c.Pairs {
		system += "\n\nAfter the table come the pairs of movies A B (A before B) where neither movie is at least as good as the other on every attribute: the comparisons whose answer depends on the weights."
	}
	if c.Echo {
		system += "\n\nBefore each answer to a new, valid comparison the user restates the score differences of A minus B on the compared attributes, in attribute order (e.g. +2 -1)."
	}
	if c.RepeatEcho {
		system += "\n\nAfter repeat the user restates the answer that comparison got before."
	}
	phrases := map[string]string{
		"<bos>":   fmt.Sprintf("Movies (each line: a movie, then its scores on a0 to a%d):", d-1),
		"ask":     "\n\nYour move: ask for a comparison (" + shortQuery(c.Focus != 0, s) + ").",
		"guess":   fmt.Sprintf("\nYour move: guess the weights (%d numbers from 0 to %d).", d, l-1),
		"answer":  fmt.Sprintf("\nYour move: give your final guess of the weights (%d numbers from 0 to %d).", d, l-1),
		"repeat":  "repeat (already asked)",
		"invalid": "invalid (your last move was malformed)",
	}
	for m := 0; m < c.Movies; m++ {
		phrases[fmt.Sprintf("m%d", m)] = fmt.Sprintf("\nm%d:", m)
	}
	return tasks.TextFormat{System: system, Phrases: phrases}
}

func shortQuery(focus bool, s int) string {
	if focus {
		return fmt.Sprintf("%d attributes, then movie A, then movie B", s)
	}
	return "movie A, then movie B"
}

// exampleGuess is a guess with weight on the first and third attributes.
func exampleGuess(d, levels int) string {
	w := make([]string, d)
	for i := range w {
		w[i] = "0"
	}
	w[0] = fmt.Sprint(levels - 1)
	if d > 2 {
		w[2] = fmt.Sprint(max(levels-3, 1))
	}
	return strings.Join(w, " ")
}

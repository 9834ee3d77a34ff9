package pe

import (
	"fmt"
	"slices"

	"arew/tasks"
)

// parseQuery reads a query: for PE-G exactly S distinct attribute tokens (any
// order) then two distinct movie tokens; for PE-F exactly two distinct movie
// tokens. Anything else is an error (a malformed step). It never panics, for
// any ids, including ones outside the vocabulary.
func (t *Task) parseQuery(action []tasks.Token) (Query, error) {
	if len(action) != t.queryLen() {
		return Query{}, fmt.Errorf("query has %d tokens, want %d", len(action), t.queryLen())
	}
	var q Query
	if t.cfg.Focus == 0 {
		q.Focus = t.qs.focusSets[0] // all D attributes
	} else {
		q.Focus = make([]int, t.cfg.Focus)
		for i := range q.Focus {
			k, ok := t.attr(action[i])
			if !ok {
				return Query{}, fmt.Errorf("token %d of the query is %q, want an attribute", i, t.vocab.Word(action[i]))
			}
			q.Focus[i] = k
		}
		slices.Sort(q.Focus)
		for i := 1; i < len(q.Focus); i++ {
			if q.Focus[i] == q.Focus[i-1] {
				return Query{}, fmt.Errorf("attribute a%d twice in the focus set", q.Focus[i])
			}
		}
	}
	n := len(action)
	a, okA := t.movie(action[n-2])
	b, okB := t.movie(action[n-1])
	if !okA || !okB {
		return Query{}, fmt.Errorf("the pair %q %q is not two movies", t.vocab.Word(action[n-2]), t.vocab.Word(action[n-1]))
	}
	if a == b {
		return Query{}, fmt.Errorf("movie m%d compared with itself", a)
	}
	q.A, q.B = a, b
	return q, nil
}

// parseGuess reads a guess: exactly D number tokens in 0..L−1, not all 0 (a
// zero vector has no direction).
func (t *Task) parseGuess(action []tasks.Token) ([]int, error) {
	if len(action) != t.guessLen() {
		return nil, fmt.Errorf("guess has %d tokens, want %d", len(action), t.guessLen())
	}
	g := make([]int, len(action))
	nonzero := false
	for i, tok := range action {
		x := int(tok - t.tok.num0)
		if tok < t.tok.num0 || x >= t.cfg.GuessLevels {
			return nil, fmt.Errorf("token %d of the guess is %q, want a level 0..%d", i, t.vocab.Word(tok), t.cfg.GuessLevels-1)
		}
		g[i] = x
		nonzero = nonzero || x > 0
	}
	if !nonzero {
		return nil, fmt.Errorf("the guess is the zero vector")
	}
	return g, nil
}

// attr maps an attribute token to its index.
func (t *Task) attr(tok tasks.Token) (int, bool) {
	k := int(tok - t.tok.attr0)
	return k, tok >= t.tok.attr0 && k < t.cfg.Dims
}

// movie maps a movie token to its index.
func (t *Task) movie(tok tasks.Token) (int, bool) {
	m := int(tok - t.tok.movie0)
	return m, tok >= t.tok.movie0 && m < t.cfg.Movies
}

// EncodeQuery renders a query as the agent's tokens (EOT excluded).
func (t *Task) EncodeQuery(q Query) []tasks.Token {
	var out []tasks.Token
	if t.cfg.Focus != 0 {
		for _, k := range q.Focus {
			out = append(out, t.tok.attr0+tasks.Token(k))
		}
	}
	return append(out, t.tok.movie0+tasks.Token(q.A), t.tok.movie0+tasks.Token(q.B))
}

// EncodeGuess renders a guess as the agent's tokens (EOT excluded).
func (t *Task) EncodeGuess(g []int) []tasks.Token {
	out := make([]tasks.Token, len(g))
	for i, x := range g {
		out[i] = t.tok.num0 + tasks.Token(x)
	}
	return out
}

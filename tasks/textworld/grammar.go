package textworld

import (
	"fmt"
	"slices"

	"arew/tasks"
)

// A command grammar, written as templates of word slots. Every command of
// the three environments has a fixed shape — "go to R N", "put O N in R N",
// "search [ w … ]" — so a grammar is a list of templates, each a sequence of
// slots, and a slot is a set of words that may stand there, once or a
// bounded number of times (webshop's query words). A command belongs to the
// grammar when its words fill the slots of one template in order. Whether
// it applies at a state is another matter: the grammar knows nothing of the
// room, only of the form (docs/act.md §11).
//
// Compiled against a vocabulary (Compile), a grammar answers the question a
// constrained decoder asks at every token: after these tokens, which tokens
// keep the command on the way to some complete command of at most n words,
// and may it end here (Next)?

// Slot is one position of a template: any word of Words, repeated Min to
// Max times in a row (Max 0: no bound). Min is at least 1.
type Slot struct {
	Words    []string
	Min, Max int
}

// One is a slot that takes exactly one of words.
func One(words ...string) Slot { return Slot{Words: words, Min: 1, Max: 1} }

// Template is one form of command: its slots in order.
type Template []Slot

// Grammar is a set of templates.
type Grammar []Template

// TokenGrammar is a grammar over a vocabulary's tokens (Compile). It is
// read only once compiled: safe for concurrent use.
type TokenGrammar struct {
	templates [][]tokenSlot
	size      int
}

type tokenSlot struct {
	in       []bool        // in[t]: token t may fill the slot
	tokens   []tasks.Token // the same set, in id order
	min, max int
}

// Compile maps the grammar's words to tokens of v. A word outside v, a
// structure token, an empty slot or a slot with Min < 1 or Max < Min is an
// error.
func (g Grammar) Compile(v *tasks.Vocab) (*TokenGrammar, error) {
	tg := &TokenGrammar{size: v.Size()}
	for i, tpl := range g {
		if len(tpl) == 0 {
			return nil, fmt.Errorf("grammar: template %d is empty", i)
		}
		var slots []tokenSlot
		for j, s := range tpl {
			if len(s.Words) == 0 || s.Min < 1 || (s.Max != 0 && s.Max < s.Min) {
				return nil, fmt.Errorf("grammar: template %d slot %d: need words and 1 ≤ min ≤ max (or max 0), got %d words, %d, %d",
					i, j, len(s.Words), s.Min, s.Max)
			}
			ts := tokenSlot{in: make([]bool, v.Size()), min: s.Min, max: s.Max}
			for _, w := range s.Words {
				t, ok := v.Lookup(w)
				if !ok || t <= tasks.EOT {
					return nil, fmt.Errorf("grammar: template %d slot %d: %q is not a word of the vocabulary", i, j, w)
				}
				ts.in[t] = true
			}
			for t, in := range ts.in {
				if in {
					ts.tokens = append(ts.tokens, tasks.Token(t))
				}
			}
			slots = append(slots, ts)
		}
		tg.templates = append(tg.templates, slots)
	}
	return tg, nil
}

// position is how far a prefix has filled one template: slot s holds c
// words so far (c ≥ 1 once a word was read; the start is slot 0 with 0).
type position struct{ t, s, c int }

// positions are the template positions prefix can have reached; none if
// it fits no template.
func (g *TokenGrammar) positions(prefix []tasks.Token) []position {
	var cur []position
	for t := range g.templates {
		cur = append(cur, position{t, 0, 0})
	}
	for _, x := range prefix {
		if x < 0 || int(x) >= g.size {
			return nil
		}
		var next []position
		add := func(p position) {
			if !slices.Contains(next, p) {
				next = append(next, p)
			}
		}
		for _, p := range cur {
			tpl := g.templates[p.t]
			if s := tpl[p.s]; s.in[x] && (s.max == 0 || p.c < s.max) {
				add(position{p.t, p.s, p.c + 1}) // one more word in this slot
			}
			if p.c >= tpl[p.s].min && p.s+1 < len(tpl) && tpl[p.s+1].in[x] {
				add(position{p.t, p.s + 1, 1}) // the first word of the next slot
			}
		}
		cur = next
	}
	return cur
}

// rest is the fewest words that complete template t from position p.
func (g *TokenGrammar) rest(p position) int {
	tpl := g.templates[p.t]
	n := max(0, tpl[p.s].min-p.c)
	for _, s := range tpl[p.s+1:] {
		n += s.min
	}
	return n
}

// Next lists, in id order, the tokens that may follow prefix on the way to
// a command of at most maxWords words: the words that continue some
// template with room to finish it, and EOT where prefix is itself a
// command. Nothing, when prefix is not the start of any command that fits.
func (g *TokenGrammar) Next(prefix []tasks.Token, maxWords int) []tasks.Token {
	n := len(prefix)
	seen := make([]bool, g.size)
	var out []tasks.Token
	take := func(ts []tasks.Token) {
		for _, t := range ts {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	for _, p := range g.positions(prefix) {
		tpl := g.templates[p.t]
		s := tpl[p.s]
		if (s.max == 0 || p.c < s.max) && n+1+g.rest(position{p.t, p.s, p.c + 1}) <= maxWords {
			take(s.tokens)
		}
		if p.c >= s.min && p.s+1 < len(tpl) && n+1+g.rest(position{p.t, p.s + 1, 1}) <= maxWords {
			take(tpl[p.s+1].tokens)
		}
		if p.c >= s.min && p.s == len(tpl)-1 {
			take([]tasks.Token{tasks.EOT})
		}
	}
	slices.Sort(out)
	return out
}

// Match reports whether tokens (EOT excluded) are a command of the grammar.
func (g *TokenGrammar) Match(tokens []tasks.Token) bool {
	for _, p := range g.positions(tokens) {
		tpl := g.templates[p.t]
		if p.s == len(tpl)-1 && p.c >= tpl[p.s].min {
			return true
		}
	}
	return false
}

package webshop

import (
	"fmt"
	"slices"
	"sort"

	"arew/tasks"
	"arew/tasks/textworld"
)

// Page is where the shopper is.
type Page uint8

const (
	SearchPage Page = iota
	ResultsPage
	ItemPage
)

// PageSize is the number of products a results page shows.
const PageSize = 3

// Env is one shopping episode (a textworld.Env).
type Env struct {
	w       *World
	ins     Instruction
	page    Page
	query   []string
	results []int // product ids matching the query, best first
	pageNo  int
	item    int
	colour  string
	size    string
	steps   int
	bought  bool
	reward  float64
	obs     []string
}

func newEnv(w *World, ins Instruction) *Env {
	e := &Env{w: w, ins: ins}
	e.obs = e.pageText()
	return e
}

// Instruction is the episode's request.
func (e *Env) Instruction() Instruction { return e.ins }

func (e *Env) Vocab() *tasks.Vocab        { return e.w.vocab }
func (e *Env) Goal() []tasks.Token        { return e.w.vocab.Encode(e.ins.Words()...) }
func (e *Env) Observation() []tasks.Token { return e.w.vocab.Encode(e.obs...) }
func (e *Env) Done() bool                 { return e.bought || e.steps >= e.w.cfg.MaxSteps }
func (e *Env) Steps() int                 { return e.steps }
func (e *Env) MaxSteps() int              { return e.w.cfg.MaxSteps }
func (e *Env) Reward() float64            { return e.reward }
func (e *Env) Success() bool              { return e.bought && e.reward == 1 }

// Clone copies the episode.
func (e *Env) Clone() textworld.Env {
	c := *e
	c.query = slices.Clone(e.query)
	c.results = slices.Clone(e.results)
	c.obs = slices.Clone(e.obs)
	return &c
}

// search ranks the products that share at least one word with the query
// by the number of distinct query words they have, ties in popularity
// (catalogue) order.
func (w *World) search(query []string) []int {
	type hit struct{ id, score int }
	var hits []hit
	words := slices.Compact(slices.Sorted(slices.Values(query)))
	for _, p := range w.catalogue {
		s := 0
		for _, q := range words {
			if p.has(q) {
				s++
			}
		}
		if s > 0 {
			hits = append(hits, hit{p.ID, s})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	out := make([]int, len(hits))
	for i, h := range hits {
		out[i] = h.id
	}
	return out
}

func (e *Env) pages() int { return (len(e.results) + PageSize - 1) / PageSize }

// onPage lists the products of the current results page.
func (e *Env) onPage() []int {
	lo := e.pageNo * PageSize
	return e.results[lo:min(lo+PageSize, len(e.results))]
}

func (e *Env) pageText() []string {
	switch e.page {
	case ResultsPage:
		if len(e.results) == 0 {
			return textworld.Words("no results .")
		}
		out := []string{"results", "page", fmt.Sprint(e.pageNo + 1), "of", fmt.Sprint(e.pages()), "."}
		for _, id := range e.onPage() {
			p := e.w.catalogue[id]
			out = append(out, p.Name(), ":")
			out = append(out, p.Title...)
			out = append(out, ",", "$", fmt.Sprint(p.Price), ".")
		}
		return out
	case ItemPage:
		p := e.w.catalogue[e.item]
		out := append([]string{"item", p.Name(), ":"}, p.Attrs...)
		out = append(out, p.Category, ",", "$", fmt.Sprint(p.Price), ".", "color", ":")
		out = append(out, p.Colours...)
		out = append(out, ".", "size", ":")
		out = append(out, p.Sizes...)
		return append(out, ".", "you", "chose", "color", orNone(e.colour), ",", "size", orNone(e.size), ".")
	}
	return textworld.Words("you are on the search page .")
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// searches are the listed queries of the search page: the category alone,
// with each requested attribute, with both (the expert's), with the colour.
func (e *Env) searches() []Action {
	in := e.ins
	return []Action{
		{Search, []string{in.Category}},
		{Search, []string{in.Attrs[0], in.Category}},
		{Search, []string{in.Attrs[1], in.Category}},
		{Search, []string{in.Attrs[0], in.Attrs[1], in.Category}},
		{Search, []string{in.Colour, in.Category}},
	}
}

// AdmissibleActions lists the actions of the current page.
func (e *Env) AdmissibleActions() []Action {
	switch e.page {
	case ResultsPage:
		out := []Action{clickOf(BackToSearch...)}
		if e.pageNo > 0 {
			out = append(out, clickOf(PrevPage...))
		}
		if e.pageNo+1 < e.pages() {
			out = append(out, clickOf(NextPage...))
		}
		for _, id := range e.onPage() {
			out = append(out, clickOf(e.w.catalogue[id].Name()))
		}
		return out
	case ItemPage:
		p := e.w.catalogue[e.item]
		out := []Action{clickOf(BackToSearch...), clickOf(PrevPage...)}
		for _, c := range p.Colours {
			out = append(out, clickOf(c))
		}
		for _, s := range p.Sizes {
			out = append(out, clickOf(s))
		}
		return append(out, clickOf(BuyNow...))
	}
	return e.searches()
}

func (e *Env) Admissible() [][]tasks.Token {
	return textworld.EncodeActions(e.w.vocab, e.AdmissibleActions())
}

// applies: listed, or any search on the search page.
func (e *Env) applies(a Action) bool {
	if e.page == SearchPage && a.Kind == Search {
		return true
	}
	for _, b := range e.AdmissibleActions() {
		if a.Kind == b.Kind && slices.Equal(a.Arg, b.Arg) {
			return true
		}
	}
	return false
}

func (e *Env) IsAdmissible(action []tasks.Token) bool {
	a, ok := textworld.ReadAction(e.w.vocab, action, ParseAction)
	return ok && e.applies(a)
}

// Step applies an action given as tokens.
func (e *Env) Step(action []tasks.Token) ([]tasks.Token, error) {
	if e.Done() {
		return nil, fmt.Errorf("webshop: step after the end of the episode")
	}
	e.steps++
	a, ok := textworld.ReadAction(e.w.vocab, action, ParseAction)
	if !ok || !e.applies(a) {
		e.obs = textworld.NothingHappens
		return e.Observation(), nil
	}
	e.apply(a)
	return e.Observation(), nil
}

func (e *Env) apply(a Action) {
	arg := a.Arg
	switch {
	case a.Kind == Search:
		e.page, e.query, e.pageNo = ResultsPage, slices.Clone(arg), 0
		e.results = e.w.search(arg)
	case slices.Equal(arg, BackToSearch):
		*e = Env{w: e.w, ins: e.ins, steps: e.steps}
	case slices.Equal(arg, NextPage):
		e.pageNo++
	case slices.Equal(arg, PrevPage) && e.page == ResultsPage:
		e.pageNo--
	case slices.Equal(arg, PrevPage):
		e.page, e.colour, e.size = ResultsPage, "", ""
	case slices.Equal(arg, BuyNow):
		e.bought = true
		e.reward = Reward(e.ins, e.w.catalogue[e.item], e.colour, e.size)
		e.obs = []string{"thank", "you", "for", "shopping", ".", "your", "score", "is", fmt.Sprint(int(e.reward*100 + 0.5)), "percent", "."}
		return
	case e.page == ResultsPage:
		e.page, e.item = ItemPage, e.w.byName[arg[0]]
	case slices.Contains(colours, arg[0]):
		e.colour = arg[0]
	default:
		e.size = arg[0]
	}
	e.obs = e.pageText()
}

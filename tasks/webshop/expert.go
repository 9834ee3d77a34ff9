package webshop

import (
	"arew/tasks"
)

// ExpertAction is the planner's next action. It knows every product (as
// WebShop's human demonstrators could read every item page), so from the
// search page it searches for the requested attributes and category; on a
// results page it clicks the first product there that satisfies the
// instruction fully, or pages towards one, or goes back to search when the
// results hold none (after a learner's poor query); on a product's page it
// chooses the requested colour, then size, then buys — or goes back if the
// product does not satisfy. ok is false once done.
func (e *Env) ExpertAction() (Action, bool) {
	if e.Done() {
		return Action{}, false
	}
	in := e.ins
	switch e.page {
	case ResultsPage:
		first := -1
		for k, id := range e.results {
			if satisfies(in, e.w.catalogue[id]) {
				first = k
				break
			}
		}
		switch {
		case first < 0:
			return clickOf(BackToSearch...), true
		case first/PageSize > e.pageNo:
			return clickOf(NextPage...), true
		case first/PageSize < e.pageNo:
			return clickOf(PrevPage...), true
		}
		return clickOf(e.w.catalogue[e.results[first]].Name()), true
	case ItemPage:
		p := e.w.catalogue[e.item]
		switch {
		case !satisfies(in, p):
			return clickOf(PrevPage...), true
		case e.colour != in.Colour:
			return clickOf(in.Colour), true
		case e.size != in.Size:
			return clickOf(in.Size), true
		}
		return clickOf(BuyNow...), true
	}
	return Action{Search, []string{in.Attrs[0], in.Attrs[1], in.Category}}, true
}

// Expert is ExpertAction as tokens (nil once done).
func (e *Env) Expert() []tasks.Token {
	a, ok := e.ExpertAction()
	if !ok {
		return nil
	}
	return e.w.vocab.Encode(a.Words()...)
}

package webshop

import (
	"fmt"
	"slices"
)

// Kind is the head of an action.
type Kind uint8

const (
	Search Kind = iota
	Click
)

// Action is a parsed action of the grammar
//
//	search [ w1 … wn ]    1 ≤ n ≤ MaxQuery, each word a vocabulary word
//	click [ element ]     element: a product (p17), an option value (red,
//	                      large), back to search, next >, < prev, buy now
type Action struct {
	Kind Kind
	Arg  []string // the words between the brackets
}

// MaxQuery bounds the words of a search.
const MaxQuery = 8

// The click targets that are not products or options.
var (
	BackToSearch = []string{"back", "to", "search"}
	NextPage     = []string{"next", ">"}
	PrevPage     = []string{"<", "prev"}
	BuyNow       = []string{"buy", "now"}
)

// ParseAction reads an action from words; anything else is an error (the
// environment answers "nothing happens .").
func ParseAction(w []string) (Action, error) {
	if len(w) < 4 || w[1] != "[" || w[len(w)-1] != "]" {
		return Action{}, fmt.Errorf("not an action: %q (want search [ … ] or click [ … ])", w)
	}
	arg := w[2 : len(w)-1]
	if slices.Contains(arg, "[") || slices.Contains(arg, "]") {
		return Action{}, fmt.Errorf("nested brackets in %q", w)
	}
	switch w[0] {
	case "search":
		if len(arg) > MaxQuery {
			return Action{}, fmt.Errorf("search of %d words (at most %d)", len(arg), MaxQuery)
		}
		return Action{Search, slices.Clone(arg)}, nil
	case "click":
		return Action{Click, slices.Clone(arg)}, nil
	}
	return Action{}, fmt.Errorf("unknown action %q", w[0])
}

// Words renders the action; ParseAction(a.Words()) gives a back.
func (a Action) Words() []string {
	head := "search"
	if a.Kind == Click {
		head = "click"
	}
	out := append([]string{head, "["}, a.Arg...)
	return append(out, "]")
}

func clickOf(arg ...string) Action { return Action{Click, arg} }

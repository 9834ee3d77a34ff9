package act

import (
	"encoding/json"
	"fmt"
	"slices"

	"arew/tasks"
	"arew/tasks/alfworld"
	"arew/tasks/sciworld"
	"arew/tasks/textworld"
	"arew/tasks/webshop"
)

// Env is one of the three text environments as the pipeline sees it: its
// vocabulary, its split sizes, a constructor of instances and its command
// grammar (the R_fmt check of a generated action).
type Env struct {
	Name  string
	Vocab *tasks.Vocab
	Sizes textworld.Sizes
	// New starts instance index of split.
	New func(split textworld.Split, index int) (textworld.Env, error)
	// Parse reports whether words form a command of the grammar (whether it
	// applies is the environment's business, not the format's).
	Parse func(words []string) error
	// FreeText reports whether the state admits well-formed actions beyond
	// its listed ones (webshop: any search on the search page); nil: none.
	FreeText func(s textworld.State, words []string) bool
	// Grammar is the command grammar as a constrained decoder reads it
	// (the environment's Grammar, compiled; DecodeGrammar).
	Grammar *textworld.TokenGrammar
	// Families names the environment's task kinds (ALFWorld's task types,
	// WebShop's product categories, ScienceWorld's procedures) and Family
	// gives an instance's (Config.InitFamilies).
	Families []string
	Family   func(split textworld.Split, index int) (string, error)
}

// NewEnv builds environment name ("alfworld", "webshop" or "sciworld")
// with its default configuration overridden by raw (a JSON object; nil for
// the defaults).
func NewEnv(name string, raw json.RawMessage) (*Env, error) {
	switch name {
	case "alfworld":
		w, err := alfworld.FromJSON(raw)
		if err != nil {
			return nil, err
		}
		return withGrammar(&Env{Name: name, Vocab: w.Vocab(), Sizes: w.Config().Sizes(),
			New: func(s textworld.Split, i int) (textworld.Env, error) { return w.NewEnv(s, i) },
			Parse: func(ws []string) error {
				_, err := alfworld.ParseCommand(ws)
				return err
			},
			Families: names(alfworld.TaskTypes),
			Family: func(s textworld.Split, i int) (string, error) {
				in, err := w.Instance(s, i)
				if err != nil {
					return "", err
				}
				return in.Task.String(), nil
			}}, w.Grammar())
	case "webshop":
		w, err := webshop.FromJSON(raw)
		if err != nil {
			return nil, err
		}
		return withGrammar(&Env{Name: name, Vocab: w.Vocab(), Sizes: w.Config().Sizes(),
			New: func(s textworld.Split, i int) (textworld.Env, error) { return w.NewEnv(s, i) },
			Parse: func(ws []string) error {
				_, err := webshop.ParseAction(ws)
				return err
			},
			Families: webshop.Categories(),
			Family: func(s textworld.Split, i int) (string, error) {
				in, err := w.Instruction(s, i)
				return in.Category, err
			},
			FreeText: func(s textworld.State, ws []string) bool {
				a, err := webshop.ParseAction(ws)
				if err != nil || a.Kind != webshop.Search {
					return false
				}
				search := w.Vocab().ID("search")
				for _, l := range s.Admissible {
					if len(l) > 0 && l[0] == search {
						return true
					}
				}
				return false
			}}, w.Grammar())
	case "sciworld":
		w, err := sciworld.FromJSON(raw)
		if err != nil {
			return nil, err
		}
		return withGrammar(&Env{Name: name, Vocab: w.Vocab(), Sizes: w.Config().Sizes(),
			New: func(s textworld.Split, i int) (textworld.Env, error) { return w.NewEnv(s, i) },
			Parse: func(ws []string) error {
				_, err := sciworld.ParseCommand(ws)
				return err
			},
			Families: names(sciworld.Procedures),
			Family: func(s textworld.Split, i int) (string, error) {
				in, err := w.Instance(s, i)
				if err != nil {
					return "", err
				}
				return in.Procedure.String(), nil
			}}, w.Grammar())
	}
	return nil, fmt.Errorf("act: unknown environment %q (want alfworld, webshop or sciworld)", name)
}

// names are the String of each of xs: an environment's family names.
func names[T fmt.Stringer](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = x.String()
	}
	return out
}

// withGrammar sets e.Grammar to g compiled against e's vocabulary.
func withGrammar(e *Env, g textworld.Grammar) (*Env, error) {
	tg, err := g.Compile(e.Vocab)
	if err != nil {
		return nil, fmt.Errorf("act %s: %w", e.Name, err)
	}
	e.Grammar = tg
	return e, nil
}

// Instances is NewEnv bound to one split, the form textworld.Evaluate takes.
func (e *Env) Instances(split textworld.Split) func(int) (textworld.Env, error) {
	return func(i int) (textworld.Env, error) { return e.New(split, i) }
}

// ExpertPairs plays the expert on instances [first, first+n) of split and
// returns its (state, action) pairs, each state with the last k turns: the
// expert data every row of the table trains on.
func (e *Env) ExpertPairs(split textworld.Split, first, n, k int) ([]textworld.Pair, error) {
	games, err := e.ExpertGames(split, first, n, k)
	return slices.Concat(games...), err
}

// ExpertGames is ExpertPairs game by game: games[j] holds the pairs of
// instance first+j.
func (e *Env) ExpertGames(split textworld.Split, first, n, k int) ([][]textworld.Pair, error) {
	out := make([][]textworld.Pair, 0, n)
	for i := first; i < first+n; i++ {
		env, err := e.New(split, i)
		if err != nil {
			return nil, fmt.Errorf("act %s: %w", e.Name, err)
		}
		ps, err := textworld.ExpertPairs(env, k)
		if err != nil {
			return nil, fmt.Errorf("act %s instance %d: %w", e.Name, i, err)
		}
		out = append(out, ps)
	}
	return out, nil
}

// wellFormed is the format check of a generated action: non-empty, only
// words of the vocabulary (no structure token), and a command of the
// grammar.
func (e *Env) wellFormed(action []tasks.Token) bool {
	if len(action) == 0 {
		return false
	}
	words, ok := textworld.ReadWords(e.Vocab, action)
	if !ok {
		return false
	}
	return e.Parse == nil || e.Parse(words) == nil
}

// Admits reports whether action is admissible at s: listed, or a free-text
// action the state allows. It reads only the state, so the datasets need no
// live environment.
func (e *Env) Admits(s textworld.State, action []tasks.Token) bool {
	if textworld.Contains(s.Admissible, action) {
		return true
	}
	if e.FreeText == nil {
		return false
	}
	words, ok := textworld.ReadWords(e.Vocab, action)
	return ok && e.FreeText(s, words)
}

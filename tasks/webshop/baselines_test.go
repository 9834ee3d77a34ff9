package webshop

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
	"arew/tasks/textworld"
	"arew/tasks/textworld/textworldtest"
)

// firstResult is a policy that reads only the page: the expert's search,
// the first product listed, the requested options when offered, buy. It
// measures how far the visible text alone gets (package doc, "Sizing").
type firstResult struct{}

func (firstResult) Name() string { return "first-result" }

func (firstResult) Act(env textworld.Env, _ textworld.State, _ *rand.Rand) []tasks.Token {
	e := env.(*Env)
	in := e.ins
	var a Action
	switch e.page {
	case SearchPage:
		a = Action{Search, []string{in.Attrs[0], in.Attrs[1], in.Category}}
	case ResultsPage:
		if len(e.results) == 0 {
			a = clickOf(BackToSearch...)
		} else {
			a = clickOf(e.w.catalogue[e.results[0]].Name())
		}
	default:
		p := e.w.catalogue[e.item]
		switch {
		case e.colour == "" && slices.Contains(p.Colours, in.Colour):
			a = clickOf(in.Colour)
		case e.size == "" && slices.Contains(p.Sizes, in.Size):
			a = clickOf(in.Size)
		default:
			a = clickOf(BuyNow...)
		}
	}
	return e.w.vocab.Encode(a.Words()...)
}

// TestBaselines measures the package doc's table (go test -run
// TestBaselines -v ./tasks/webshop/): random admissible, first-result and
// the expert on both splits, and the expert data's size.
func TestBaselines(t *testing.T) {
	w := store(t)
	for _, split := range splits {
		n := w.cfg.Sizes().Size(split)
		for _, p := range []textworld.Policy{textworld.RandomAdmissible{}, firstResult{}, textworld.Expert{}} {
			r, err := textworld.Evaluate(w.Env(split), n, p, textworld.History, rand.New(rand.NewPCG(7, 7)))
			require.NoError(t, err)
			t.Logf("%-6v %-12s reward %.3f  success %.3f  steps %5.2f", split, r.Policy, r.MeanReward, r.Success, r.MeanSteps)
			switch p.Name() {
			case "expert":
				assert.Equal(t, 1.0, r.Success)
			case "random":
				assert.Less(t, r.Success, 0.1)
			default:
				assert.Less(t, r.Success, 0.6)
			}
		}
		pairs, err := textworld.Dataset(w, split, n, textworld.History)
		require.NoError(t, err)
		textworldtest.LogPairs(t, split, pairs, w.vocab)
	}
}

package sciworld

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks/textworld"
)

// allCommands is every template action over all names of the lab: the
// reference that the pruned candidate list must cover.
func allCommands() []Command {
	out := []Command{{Verb: LookAround}, {Verb: Inventory}, {Verb: Wait}}
	for _, r := range rooms {
		out = append(out, Command{Verb: GoTo, X: r})
	}
	var names []string
	for n := range isName {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, x := range names {
		for _, v := range []Verb{Open, Close, Activate, Deactivate, PickUp, FocusOn, MixThing} {
			out = append(out, Command{Verb: v, X: x})
		}
		for _, y := range names {
			out = append(out, Command{Verb: MoveTo, X: x, Y: y}, Command{Verb: PourInto, X: x, Y: y})
		}
	}
	return out
}

// TestAdmissibleIsComplete: at states along expert and random play, every
// template action that applies is listed, and everything listed applies.
func TestAdmissibleIsComplete(t *testing.T) {
	w := lab(t)
	all := allCommands()
	rng := rand.New(rand.NewPCG(9, 9))
	for i := 0; i < 40; i++ {
		e, err := w.NewEnv(textworld.Train, i)
		require.NoError(t, err)
		for k := 0; k < 20 && !e.Done(); k++ {
			listed := e.AdmissibleCommands()
			for _, c := range all {
				if e.applicable(c) {
					require.True(t, slices.Contains(listed, c), "game %d: %v applies but is not listed", i, c.Words())
				}
			}
			for _, c := range listed {
				assert.True(t, e.applicable(c))
			}
			a := e.Expert()
			if k%3 == 1 {
				adm := e.Admissible()
				a = adm[rng.IntN(len(adm))]
				if w.vocab.Word(a[0]) == "focus" {
					a = e.Expert()
				}
			}
			_, _ = e.Step(a)
		}
	}
}

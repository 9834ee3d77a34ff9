package alfworld

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks/textworld"
)

// allCommands is every command of the grammar over the things of the game:
// the reference that the pruned candidate list must cover.
func allCommands(e *Env) []Command {
	out := []Command{{Verb: Look}, {Verb: Inventory}}
	var recs, objs []Thing
	for _, r := range e.recs {
		recs = append(recs, r.thing())
	}
	for _, o := range e.objs {
		objs = append(objs, o.thing())
	}
	for _, r := range recs {
		out = append(out, Command{Verb: GoTo, Rec: r}, Command{Verb: Open, Rec: r}, Command{Verb: Close, Rec: r}, Command{Verb: ExamineThing, Rec: r})
		for _, o := range objs {
			for _, v := range []Verb{Take, CleanWith, HeatWith, CoolWith} {
				out = append(out, Command{Verb: v, Obj: o, Rec: r})
			}
			out = append(out, Command{Verb: Put, Obj: o, Rec: r, Prep: "in"}, Command{Verb: Put, Obj: o, Rec: r, Prep: "on"})
		}
	}
	for _, o := range objs {
		out = append(out, Command{Verb: Use, Obj: o}, Command{Verb: ExamineThing, Obj: o})
	}
	return out
}

// TestAdmissibleIsComplete: at states along expert and random play, every
// command of the full grammar that applies is listed, and nothing listed
// fails to apply.
func TestAdmissibleIsComplete(t *testing.T) {
	w := world(t)
	rng := rand.New(rand.NewPCG(9, 9))
	for i := 0; i < 40; i++ {
		e, err := w.NewEnv(textworld.Train, i)
		require.NoError(t, err)
		for k := 0; k < 20 && !e.Done(); k++ {
			listed := e.AdmissibleCommands()
			for _, c := range allCommands(e) {
				if e.applicable(c) {
					require.True(t, slices.Contains(listed, c), "game %d: %v applies but is not listed", i, c.Words())
				}
			}
			for _, c := range listed {
				assert.True(t, e.applicable(c))
			}
			a := e.Expert()
			if k%2 == 1 {
				adm := e.Admissible()
				a = adm[rng.IntN(len(adm))]
			}
			_, _ = e.Step(a)
		}
	}
}

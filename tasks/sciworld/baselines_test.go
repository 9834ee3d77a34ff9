package sciworld

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
	"arew/tasks/textworld"
	"arew/tasks/textworld/textworldtest"
)

// TestBaselines measures the package doc's table (go test -run
// TestBaselines -v ./tasks/sciworld/): offline next-action accuracy on the
// held-out expert states of the test split for the random admissible
// predictor and the expert, online success of both, and the dataset's size.
func TestBaselines(t *testing.T) {
	w := lab(t)
	for _, split := range splits {
		pairs, err := textworld.Dataset(w, split, w.cfg.Sizes().Size(split), textworld.History)
		require.NoError(t, err)
		textworldtest.LogPairs(t, split, pairs, w.vocab)
		rng := rand.New(rand.NewPCG(7, 7))
		random := textworld.Accuracy(pairs, func(s textworld.State) []tasks.Token {
			return s.Admissible[rng.IntN(len(s.Admissible))]
		})
		fromHall := 0
		for _, p := range pairs {
			if strings.HasPrefix(w.vocab.Decode(p.State.Obs), "you move to the hallway") {
				fromHall++
			}
		}
		t.Logf("%-5v random accuracy %.3f  expert accuracy 1  in the hallway %.3f", split, random, float64(fromHall)/float64(len(pairs)))
		assert.Less(t, random, 0.15)
		for _, p := range []textworld.Policy{textworld.RandomAdmissible{}, textworld.Expert{}} {
			r, err := textworld.Evaluate(w.Env(split), w.cfg.Sizes().Size(split), p, textworld.History, rand.New(rand.NewPCG(7, 7)))
			require.NoError(t, err)
			t.Logf("%-5v %-7s success %.3f  steps %5.2f", split, r.Policy, r.Success, r.MeanSteps)
		}
	}
}

// TestPrivilegedShare measures how much of the expert's behaviour depends
// on what the learner cannot see: a step is privileged when it leaves the
// hallway for a room, or opens a container, on the way to a thing (the
// object of the next pick up, focus, move, pour or mix) that no earlier
// observation showed. A learner that knows every procedure but not where
// things are must guess those steps (1 of 4 rooms, 1 of the closed
// containers). Logged for the package doc.
func TestPrivilegedShare(t *testing.T) {
	w := lab(t)
	priv, total := 0, 0
	for i := 0; i < w.cfg.Test; i++ {
		e, err := w.NewEnv(textworld.Test, i)
		require.NoError(t, err)
		tr, err := textworld.Play(e, textworld.Expert{}, textworld.History, nil)
		require.NoError(t, err)
		seen := map[string]bool{}
		for _, tok := range tr.Steps[0].State.Obs {
			seen[w.vocab.Word(tok)] = true
		}
		for k, s := range tr.Steps {
			words := strings.Fields(w.vocab.Decode(s.Action))
			leaves := words[0] == "go" && words[2] != "hallway" && strings.HasPrefix(w.vocab.Decode(s.State.Obs), "you move to the hallway")
			if leaves || words[0] == "open" {
				for _, later := range tr.Steps[k+1:] {
					lw := strings.Fields(w.vocab.Decode(later.Action))
					if lw[0] == "pick" || lw[0] == "focus" || lw[0] == "move" || lw[0] == "pour" || lw[0] == "mix" {
						obj := lw[len(lw)-1]
						if lw[0] == "move" || lw[0] == "pour" {
							obj = lw[1]
						}
						if lw[0] == "mix" {
							obj = lw[1]
						}
						if !seen[obj] {
							priv++
						}
						break
					}
				}
			}
			for _, tok := range s.Next {
				seen[w.vocab.Word(tok)] = true
			}
			total++
		}
	}
	share := float64(priv) / float64(total)
	t.Logf("test: %d of %d expert steps privileged (%.3f)", priv, total, share)
	assert.Greater(t, share, 0.05)
}

package flodial

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
)

// recycleTasks are the settings whose play differs: critiques, echo, style,
// the hard table.
func recycleTasks(t *testing.T) map[string]*Task {
	out := map[string]*Task{}
	for name, raw := range map[string]string{
		"easy": ``, "hard": `hard`, "consistent": `{"Critiques": "consistent"}`,
		"per-fault": `{"Critiques": "per-fault", "Echo": true}`, "style": `{"Style": "hasty"}`,
		"mass": `{"Critiques": "mass"}`, "majority": `{"Critiques": "majority", "Echo": true}`,
	} {
		base, cfg := "flodial-easy", json.RawMessage(raw)
		if raw == "hard" {
			base, cfg = "flodial-hard", nil
		} else if raw == "" {
			cfg = nil
		}
		task, err := tasks.New(base, cfg)
		require.NoError(t, err)
		out[name] = task.(*Task)
	}
	return out
}

// noisyAction is a turn of a policy that is often wrong: a valid move from
// the scripted policy, or a random one (repeats, other tokens, wrong
// lengths, beliefs without mass).
func noisyAction(t *testing.T, task *Task, pol tasks.Policy, ep tasks.Episode, rng *rand.Rand) []tasks.Token {
	if rng.IntN(2) == 0 {
		a, err := pol.Act(ep, rng)
		require.NoError(t, err)
		return a
	}
	a := make([]tasks.Token, rng.IntN(task.cfg.Faults+2))
	for i := range a {
		a[i] = task.levels.First + tasks.Token(rng.IntN(task.cfg.Levels))
		if rng.IntN(5) == 0 {
			a[i] = tasks.Token(rng.IntN(task.Vocab().Size()))
		}
	}
	return a
}

// show prints a value with its NaNs, so NaN compares equal to NaN.
func show(v any) string { return fmt.Sprintf("%+v", v) }

// withoutText is the steps with Text cleared, as a recycled episode has them.
func withoutText(steps []tasks.Step) []tasks.Step {
	out := append([]tasks.Step(nil), steps...)
	for i := range out {
		out[i].Text = ""
	}
	return out
}

// An episode recycled again and again, over instances of both splits and
// every setting, plays exactly as a fresh NewEpisode on the same moves —
// prompt, turns, observations, steps (but Text), measures — and what it
// returned earlier in the episode is still intact at its end.
func TestRecycleMatchesNewEpisode(t *testing.T) {
	for name, task := range recycleTasks(t) {
		t.Run(name, func(t *testing.T) {
			pol, err := task.Scripted(tasks.PolicySpec{Kind: "weak", QAS: 0.5, QBT: 0.5})
			require.NoError(t, err)
			rng := rand.New(rand.NewPCG(5, 6))
			var old tasks.Episode
			for i := range 60 {
				split, index := tasks.Split(i%2), rng.IntN(1000)
				fresh, err := task.NewEpisode(split, index)
				require.NoError(t, err)
				rec, err := task.Recycle(old, split, index)
				require.NoError(t, err)
				if old != nil {
					assert.Same(t, old, rec, "episode %d: the memory is reused", i)
				}
				old = rec
				prompt := rec.Prompt()
				require.Equal(t, fresh.Prompt(), prompt, "episode %d", i)
				var obsWant, obsGot [][]tasks.Token
				for !fresh.Done() {
					require.False(t, rec.Done())
					require.Equal(t, fresh.Next(), rec.Next())
					a := noisyAction(t, task, pol, fresh, rng)
					o1, s1, err := fresh.Step(a)
					require.NoError(t, err)
					o2, s2, err := rec.Step(append([]tasks.Token(nil), a...))
					require.NoError(t, err)
					s1.Text = ""
					require.Equal(t, show(s1), show(s2), "episode %d", i)
					require.Equal(t, o1, o2, "episode %d", i)
					obsWant, obsGot = append(obsWant, o1), append(obsGot, o2)
				}
				assert.True(t, rec.Done())
				assert.Equal(t, show(withoutText(fresh.Steps())), show(rec.Steps()), "episode %d", i)
				assert.Equal(t, show(fresh.Measures()), show(rec.Measures()), "episode %d", i)
				assert.Equal(t, obsWant, obsGot, "episode %d: earlier observations intact", i)
				assert.Equal(t, fresh.Prompt(), prompt, "episode %d: prompt intact", i)
				_, _, err = rec.Step(nil)
				assert.Error(t, err, "a step after the end")
			}
			_, err = task.Recycle(old, tasks.Train, -1)
			assert.Error(t, err)
		})
	}
}

// Recycle with nothing to recycle, or another task's episode, makes a new
// one that plays as NewEpisode's.
func TestRecycleForeignEpisode(t *testing.T) {
	ts := recycleTasks(t)
	other, err := ts["hard"].NewEpisode(tasks.Train, 3)
	require.NoError(t, err)
	for _, old := range []tasks.Episode{nil, other} {
		ep, err := ts["easy"].Recycle(old, tasks.Train, 3)
		require.NoError(t, err)
		want, err := ts["easy"].NewEpisode(tasks.Train, 3)
		require.NoError(t, err)
		assert.NotSame(t, other, ep)
		assert.Equal(t, want.Prompt(), ep.Prompt())
	}
}

// permInto draws what rand.Perm draws.
func TestPermIntoMatchesPerm(t *testing.T) {
	for n := range 18 {
		a, b := rand.New(rand.NewPCG(uint64(n), 1)), rand.New(rand.NewPCG(uint64(n), 1))
		p := make([]int, n)
		for range 5 {
			permInto(b, p)
			require.Equal(t, a.Perm(n), p, "n %d", n)
		}
		assert.Equal(t, a.Uint64(), b.Uint64(), "n %d: the generators stay in step", n)
	}
}

// A recycled episode, once its memory has grown, plays a whole episode
// without allocating, whatever the moves and critiques.
func TestRecycledEpisodeAllocatesNothing(t *testing.T) {
	for name, task := range recycleTasks(t) {
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, 8))
			pol, err := task.Scripted(tasks.PolicySpec{Kind: "weak", QAS: 0.5, QBT: 0.5})
			require.NoError(t, err)
			var moves [][]tasks.Token // one episode's noisy moves, replayed
			ep, err := task.NewEpisode(tasks.Train, 1)
			require.NoError(t, err)
			for !ep.Done() {
				a := noisyAction(t, task, pol, ep, rng)
				_, _, err := ep.Step(a)
				require.NoError(t, err)
				moves = append(moves, a)
			}
			malformed := make([][]tasks.Token, len(moves)) // K header tokens: nothing parses
			for i := range malformed {
				malformed[i] = make([]tasks.Token, task.cfg.Faults)
				for j := range malformed[i] {
					malformed[i][j] = task.ask
				}
			}
			var old tasks.Episode
			index := 0
			play := func() {
				index++
				e, err := task.Recycle(old, tasks.Train, index)
				if err != nil {
					panic(err)
				}
				old = e
				e.Prompt()
				for _, a := range moves {
					if e.Done() {
						break
					}
					if _, _, err := e.Step(a); err != nil {
						panic(err)
					}
				}
				e.Measures()
			}
			play()
			assert.Zero(t, testing.AllocsPerRun(20, play))
			moves, old = malformed, nil // new memory that only ever sees malformed moves
			play()
			assert.Zero(t, testing.AllocsPerRun(20, play), "malformed moves only")
		})
	}
}

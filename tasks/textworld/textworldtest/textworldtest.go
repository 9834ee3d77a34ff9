// Package textworldtest holds the checks that the text worlds' tests
// (alfworld, sciworld, webshop) share: the step fuzz contract, the
// expert's recovery from random prefixes and the expert's speed.
package textworldtest

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"arew/tasks"
	"arew/tasks/textworld"
)

// Turns splits fuzz bytes into agent turns at 0xFE, each other byte a
// token by tok.
func Turns(data []byte, tok func(b byte) tasks.Token) [][]tasks.Token {
	turns := [][]tasks.Token{{}}
	for _, b := range data {
		if b == 0xFE {
			turns = append(turns, nil)
			continue
		}
		turns[len(turns)-1] = append(turns[len(turns)-1], tok(b))
	}
	return turns
}

// PlayFuzz plays turns on env in rotation, every third turn the expert's
// action instead, until the episode ends: no step fails, every
// observation token lies past EOT inside the vocabulary, and the episode
// ends within its MaxSteps.
func PlayFuzz(t *testing.T, env textworld.Env, turns [][]tasks.Token) {
	for k := 0; !env.Done(); k++ {
		a := turns[k%len(turns)]
		if k%3 == 2 {
			a = env.Expert()
		}
		obs, err := env.Step(a)
		require.NoError(t, err)
		for _, tok := range obs {
			require.True(t, tok > tasks.EOT && int(tok) < env.Vocab().Size())
		}
	}
	require.LessOrEqual(t, env.Steps(), env.MaxSteps())
}

// Recoveries runs textworld.CheckRecovery three times over games 0 to
// games−1 of newEnv, each after 1–8 random admissible actions (one
// stream, PCG(11, 12)), calls failed with every game the expert did not
// then solve, and returns how many recoveries it tested and solved.
func Recoveries(t *testing.T, newEnv func(int) (textworld.Env, error), games int, failed func(e textworld.Env, game int)) (tested, solved int) {
	rng := rand.New(rand.NewPCG(11, 12))
	for range 3 {
		for i := range games {
			e, err := newEnv(i)
			require.NoError(t, err)
			r, err := textworld.CheckRecovery(e, 1+rng.IntN(8), rng)
			require.NoError(t, err, "game %d", i)
			switch {
			case !r.Tested:
				continue
			case r.Success:
				solved++
			default:
				failed(e, i)
			}
			tested++
		}
	}
	t.Logf("%d recoveries tested, %d solved", tested, solved)
	return tested, solved
}

// BenchmarkExpert times what a rollout does per step on the first n test
// instances of w: render the state as a prompt (admissible list
// included), ask the planner, step. It reports steps per second.
func BenchmarkExpert(b *testing.B, w textworld.World, n int) {
	newEnv := w.Env(textworld.Test)
	steps := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e, err := newEnv(i % n)
		if err != nil {
			b.Fatal(err)
		}
		var past []textworld.Turn
		for !e.Done() {
			s := textworld.Snapshot(e, past, textworld.History)
			_ = s.Tokens(w.Vocab())
			a := e.Expert()
			if _, err := e.Step(a); err != nil {
				b.Fatal(err)
			}
			past = append(past, textworld.Turn{Obs: s.Obs, Action: a})
			steps++
		}
	}
	b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
}

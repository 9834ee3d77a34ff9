package pe

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
	"arew/tasks/taskstest"
)

// The echo layout restates a valid new query's score differences x_A − x_B
// on its focus set before the reply (attributes in increasing order, PE-F
// all of them); a repeat and an invalid query get no echo. Its words come
// after the plain vocabulary's, which is otherwise unchanged.
func TestEchoProtocol(t *testing.T) {
	e := handEpisode(t, func(c *Config) { c.Echo = true }, nil)
	plain := handEpisode(t, nil, nil)
	assert.Equal(t, plain.t.vocab.Words(), e.t.vocab.Words()[:plain.t.vocab.Size()])
	assert.Equal(t, []string{"-4", "-3", "-2", "-1", "+0", "+1", "+2", "+3", "+4"}, e.t.vocab.Words()[plain.t.vocab.Size():])
	assert.Equal(t, words(plain, plain.Prompt()), words(e, e.Prompt()))

	// m0 = (4 0 0), m1 = (0 4 0), m4 = (2 2 0), m5 = (1 4 0).
	obs, _ := step(t, e, ask(e, []int{1, 0}, 0, 1))
	assert.Equal(t, "+4 -4 yes guess", words(e, obs))
	step(t, e, say(e, 4, 2, 1))
	obs, _ = step(t, e, ask(e, []int{0, 2}, 4, 5))
	assert.Equal(t, "+1 +0 yes guess", words(e, obs))
	step(t, e, say(e, 4, 2, 1))
	obs, _ = step(t, e, ask(e, []int{0, 1}, 1, 0))
	assert.Equal(t, "repeat answer", words(e, obs))

	inv := handEpisode(t, func(c *Config) { c.Echo = true }, nil)
	obs, _ = step(t, inv, ask(inv, []int{0, 0}, 0, 1))
	assert.Equal(t, "invalid guess", words(inv, obs))

	fc := tinyConfig()
	fc.Focus, fc.Echo = 0, true
	task := newTask(t, fc)
	inst := handInstance()
	f := newEpisodeOn(task, inst, particlesFrom(3, [][]float64{inst.truth}))
	obs, _ = step(t, f, f.t.EncodeQuery(Query{A: 2, B: 5}))
	assert.Equal(t, "+1 -2 +2 equal guess", words(f, obs))
}

// The echo only adds tokens: with the same actions, the same instances
// give the same steps and measures, and the stream without the echo tokens
// is the plain layout's, word for word. MaxTokens grows by the echo of
// every query round, and an agent that asks valid new queries and fills
// every guess turn with junk reaches it exactly.
func TestEchoKeepsTheTask(t *testing.T) {
	for _, name := range []string{"pe-g-s2", "pe-f-d6"} {
		t.Run(name, func(t *testing.T) {
			cfg := fastConfig(t, name, 512)
			plain := newTask(t, cfg)
			cfg.Echo = true
			echo := newTask(t, cfg)
			assert.Equal(t, plain.MaxTokens()+cfg.Queries*cfg.focusSize(), echo.MaxTokens())
			diffs := map[string]bool{}
			for _, w := range diffWords(cfg.ScoreMax) {
				diffs[w] = true
			}
			for _, kind := range []string{"strong", "random", "weak"} {
				spec := tasks.PolicySpec{Kind: kind, QAS: 0.5, QBT: 0.5}
				for i := range 10 {
					p := taskstest.Stream(t, plain, spec, tasks.Val, i, 3)
					s := taskstest.Stream(t, echo, spec, tasks.Val, i, 3)
					var kept []string
					echoed := 0
					for _, tok := range s {
						if w := echo.vocab.Word(tok); diffs[w] {
							echoed++
						} else {
							kept = append(kept, w)
						}
					}
					var want []string
					for _, tok := range p {
						want = append(want, plain.vocab.Word(tok))
					}
					assert.Equal(t, want, kept, "%s %d", kind, i)
					if kind == "strong" {
						assert.Equal(t, cfg.Queries*cfg.focusSize(), echoed, "every strong query is valid and new")
					}
				}
				assert.Equal(t, playAll(t, plain, spec, 20), playAll(t, echo, spec, 20), kind)
			}

			ep, err := echo.newEpisode(tasks.Val, 0)
			require.NoError(t, err)
			n := len(ep.Prompt())
			rng := rand.New(rand.NewPCG(1, 2))
			for !ep.Done() {
				a := make([]tasks.Token, ep.Next().MaxTokens-1)
				for i := range a {
					a[i] = tasks.Pad
				}
				if ep.QueryTurn() {
					a = echo.EncodeQuery(ep.randomQuery(rng, false))
				}
				obs, _, err := ep.Step(a)
				require.NoError(t, err)
				n += len(a) + 1 + len(obs)
			}
			assert.Equal(t, echo.MaxTokens(), n)
		})
	}
}

// The echo layout keeps the shared promises: the locked demonstrator's
// (taskstest.CheckLocked), the styles' (CheckStyles) and the hybrid
// evaluation's (CheckScriptedTurns).
func TestEchoShared(t *testing.T) {
	task, err := tasks.New("pe-f-d6", json.RawMessage(`{"Critiques": "consistent", "Echo": true, "Particles": 1024}`))
	require.NoError(t, err)
	limit := task.(*Task).TurnLimit()
	locked, skilled, strong := taskstest.CheckLocked(t, task, 40, limit, 0, 0)
	assert.Zero(t, locked.IAS)
	assert.Equal(t, strong, skilled)
	taskstest.CheckStyles(t, "pe-g-s3", map[string]any{"Echo": true})
	taskstest.CheckStyles(t, "pe-f-d6", map[string]any{"Echo": true})
	taskstest.CheckScriptedTurns(t, task, tasks.PolicySpec{Kind: "strong"}, tasks.AS, tasks.PolicySpec{Kind: "random"}, 20, limit)
}

// The echo is off in every registered setting.
func TestLayoutOptionsOffByDefault(t *testing.T) {
	for _, name := range []string{"pe-g-s2", "pe-g-s3", "pe-f-d6", "pe-f-d8"} {
		c, err := DefaultConfig(name)
		require.NoError(t, err)
		assert.False(t, c.Echo, name)
		task, err := tasks.New(name, nil)
		require.NoError(t, err)
		assert.False(t, slices.Contains(task.Vocab().Words(), "+0"), fmt.Sprint(name))
	}
}

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

// The repeat-echo layout restates, after "repeat", what the query's first
// asking was told, in the order asked now: its echo under Echo, then its
// answer. The repeat adds no evidence and keeps its critique.
func TestRepeatEchoProtocol(t *testing.T) {
	for _, echo := range []bool{true, false} {
		e := handEpisode(t, func(c *Config) { c.Echo, c.RepeatEcho = echo, true }, nil)
		obs, _ := step(t, e, ask(e, []int{1, 0}, 0, 1))
		first := "yes guess"
		if echo {
			first = "+4 -4 yes guess"
		}
		assert.Equal(t, first, words(e, obs))
		step(t, e, say(e, 4, 2, 1))
		size := e.ConsistentSize()
		obs, st := step(t, e, ask(e, []int{0, 1}, 1, 0))
		again := "repeat no guess"
		if echo {
			again = "repeat -4 +4 no guess"
		}
		assert.Equal(t, again, words(e, obs), "echo=%v", echo)
		assert.True(t, st.Repeat)
		assert.Equal(t, int8(-1), st.Z)
		assert.Equal(t, size, e.ConsistentSize(), "a repeat adds no evidence")
	}
}

// A layout only adds tokens: with the same actions, the same instances
// give the same steps and measures, and the stream without the echo tokens
// and the listed pairs is the plain layout's, word for word. MaxTokens
// grows by the echo of every query round and by every pair of movies
// listed (a bound the listing reaches only when no pair is dominated); an
// agent that asks valid new queries and fills every guess turn with junk
// reaches it exactly, less the pairs its table does not list.
func TestLayoutsKeepTheTask(t *testing.T) {
	for _, c := range []struct {
		name                string
		echo, pairs, repeat bool
	}{
		{"pe-g-s2", true, false, false}, {"pe-f-d6", true, false, false}, {"pe-f-d6", false, true, false},
		{"pe-f-d8", true, true, false}, {"pe-f-d6", true, true, true}, {"pe-g-s3", false, false, true},
	} {
		t.Run(fmt.Sprintf("%s echo=%v pairs=%v repeat=%v", c.name, c.echo, c.pairs, c.repeat), func(t *testing.T) {
			cfg := fastConfig(t, c.name, 512)
			plain := newTask(t, cfg)
			cfg.Echo, cfg.Pairs, cfg.RepeatEcho = c.echo, c.pairs, c.repeat
			layout := newTask(t, cfg)
			allPairs := 2 * binom(cfg.Movies, 2)
			if !c.pairs {
				allPairs = 0
			}
			repeats := 0
			if c.repeat {
				repeats = cfg.Queries - 1
			}
			assert.Equal(t, plain.MaxTokens()+layout.echoLen()*cfg.Queries+allPairs+repeats, layout.MaxTokens())
			diffs := map[string]bool{}
			for _, w := range diffWords(cfg.ScoreMax) {
				diffs[w] = true
			}
			for _, kind := range []string{"strong", "random", "weak"} {
				spec := tasks.PolicySpec{Kind: kind, QAS: 0.5, QBT: 0.5}
				for i := range 10 {
					p := taskstest.Stream(t, plain, spec, tasks.Val, i, 3)
					s := taskstest.Stream(t, layout, spec, tasks.Val, i, 3)
					ep, err := layout.NewEpisode(tasks.Val, i)
					require.NoError(t, err)
					rows := plain.promptLen() - 1 // the prompt before "ask"
					listed := len(ep.Prompt()) - 1 - rows
					assert.Equal(t, c.pairs, listed > 0)
					var kept []string
					echoed, restated := 0, false
					for j, tok := range s {
						w := layout.vocab.Word(tok)
						switch {
						case diffs[w]:
							echoed++
						case restated: // the answer a repeat restates
							restated = false
						case j < rows || j >= rows+listed:
							kept = append(kept, w)
							restated = c.repeat && w == "repeat"
						}
					}
					var want []string
					for _, tok := range p {
						want = append(want, plain.vocab.Word(tok))
					}
					assert.Equal(t, want, kept, "%s %d", kind, i)
					if kind == "strong" {
						assert.Equal(t, cfg.Queries*layout.echoLen(), echoed, "every strong query is valid and new")
					}
				}
				assert.Equal(t, playAll(t, plain, spec, 20), playAll(t, layout, spec, 20), kind)
			}

			ep, err := layout.newEpisode(tasks.Val, 0)
			require.NoError(t, err)
			n := len(ep.Prompt())
			unlisted := layout.promptLen() - n
			rng := rand.New(rand.NewPCG(1, 2))
			var firstQuery []tasks.Token // under RepeatEcho, asked again every round: the longest reply
			for !ep.Done() {
				a := make([]tasks.Token, ep.Next().MaxTokens-1)
				for i := range a {
					a[i] = tasks.Pad
				}
				if ep.QueryTurn() {
					a = layout.EncodeQuery(ep.randomQuery(rng, false))
					if c.repeat && firstQuery != nil {
						a = firstQuery
					}
					firstQuery = a
				}
				obs, _, err := ep.Step(a)
				require.NoError(t, err)
				n += len(a) + 1 + len(obs)
			}
			assert.Equal(t, layout.MaxTokens()-unlisted, n)
		})
	}
}

// The pairs layout lists exactly the pairs whose query the spec critique
// calls informative (+1), each once with A < B, in increasing order; it
// is a PE-F layout.
func TestPairs(t *testing.T) {
	fc := tinyConfig()
	fc.Focus, fc.Pairs = 0, true
	task := newTask(t, fc)
	inst := handInstance()
	e := newEpisodeOn(task, inst, particlesFrom(3, [][]float64{inst.truth}))
	// m1 m5 (-1 0 0), m2 m3 (1 1 1) and m2 m4 (0 0 2) are dominated.
	assert.Equal(t, "<bos> m0 4 0 0 m1 0 4 0 m2 2 2 2 m3 1 1 1 m4 2 2 0 m5 1 4 0 "+
		"m0 m1 m0 m2 m0 m3 m0 m4 m0 m5 m1 m2 m1 m3 m1 m4 m2 m5 m3 m4 m3 m5 m4 m5 ask", words(e, e.Prompt()))

	cfg := fastConfig(t, "pe-f-d6", 256)
	cfg.Pairs = true
	task = newTask(t, cfg)
	for i := range 20 {
		ep, err := task.newEpisode(tasks.Val, i)
		require.NoError(t, err)
		p := ep.Prompt()
		listed := map[[2]int]bool{}
		for j := task.promptLen() - 2*binom(cfg.Movies, 2) - 1; j+1 < len(p)-1; j += 2 {
			a, b := int(p[j]-task.tok.movie0), int(p[j+1]-task.tok.movie0)
			require.Less(t, a, b)
			require.False(t, listed[[2]int{a, b}])
			listed[[2]int{a, b}] = true
		}
		for a := range cfg.Movies {
			for b := a + 1; b < cfg.Movies; b++ {
				fresh, err := task.newEpisode(tasks.Val, i)
				require.NoError(t, err)
				_, st, err := fresh.Step(task.EncodeQuery(Query{A: a, B: b}))
				require.NoError(t, err)
				assert.Equal(t, listed[[2]int{a, b}], st.Z == 1, "instance %d, m%d m%d", i, a, b)
			}
		}
	}

	g, err := DefaultConfig("pe-g-s2")
	require.NoError(t, err)
	g.Pairs = true
	assert.ErrorContains(t, g.Validate(), "Pairs is a PE-F layout")
}

// The layouts keep the shared promises: the locked demonstrator's
// (taskstest.CheckLocked), the styles' (CheckStyles) and the hybrid
// evaluation's (CheckScriptedTurns).
func TestLayoutsShared(t *testing.T) {
	task, err := tasks.New("pe-f-d6", json.RawMessage(`{"Critiques": "consistent", "Echo": true, "Pairs": true, "Particles": 1024}`))
	require.NoError(t, err)
	limit := task.(*Task).TurnLimit()
	locked, skilled, strong := taskstest.CheckLocked(t, task, 40, limit, 0, 0)
	assert.Zero(t, locked.IAS)
	assert.Equal(t, strong, skilled)
	taskstest.CheckStyles(t, "pe-g-s3", map[string]any{"Echo": true})
	taskstest.CheckStyles(t, "pe-f-d6", map[string]any{"Echo": true})
	taskstest.CheckStyles(t, "pe-f-d8", map[string]any{"Pairs": true})
	taskstest.CheckScriptedTurns(t, task, tasks.PolicySpec{Kind: "strong"}, tasks.AS, tasks.PolicySpec{Kind: "random"}, 20, limit)
}

// The layout options are off in every registered setting.
func TestLayoutOptionsOffByDefault(t *testing.T) {
	for _, name := range []string{"pe-g-s2", "pe-g-s3", "pe-f-d6", "pe-f-d8"} {
		c, err := DefaultConfig(name)
		require.NoError(t, err)
		assert.False(t, c.Echo || c.Pairs, name)
		task, err := tasks.New(name, nil)
		require.NoError(t, err)
		assert.False(t, slices.Contains(task.Vocab().Words(), "+0"), fmt.Sprint(name))
	}
}

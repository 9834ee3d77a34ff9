package pe

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
)

func TestEpisodeProtocol(t *testing.T) {
	e := handEpisode(t, nil, nil)
	assert.Equal(t, "<bos> m0 4 0 0 m1 0 4 0 m2 2 2 2 m3 1 1 1 m4 2 2 0 m5 1 4 0 ask", words(e, e.Prompt()))
	assert.Equal(t, tasks.Turn{Kind: tasks.AS, MaxTokens: 5}, e.Next())

	obs, st := step(t, e, ask(e, []int{0, 1}, 0, 1))
	assert.Equal(t, "yes guess", words(e, obs))
	assert.Equal(t, tasks.AS, st.Kind)
	assert.True(t, math.IsNaN(st.TruthMass))
	assert.Equal(t, tasks.Turn{Kind: tasks.BT, MaxTokens: 4}, e.Next())

	obs, st = step(t, e, say(e, 4, 2, 1))
	assert.Equal(t, "ask", words(e, obs))
	assert.Equal(t, tasks.BT, st.Kind)
	assert.InDelta(t, cosine([]float64{4, 2, 1}, e.inst.truth), st.TruthMass, 1e-15)

	obs, _ = step(t, e, ask(e, []int{0, 1}, 5, 4))
	assert.Equal(t, "equal guess", words(e, obs))
	obs, _ = step(t, e, say(e, 4, 2, 1))
	assert.Equal(t, "ask", words(e, obs))
	obs, _ = step(t, e, ask(e, []int{0, 1}, 1, 0))
	assert.Equal(t, "repeat answer", words(e, obs), "the last query round announces the final answer")
	assert.Equal(t, tasks.Turn{Kind: tasks.BT, Final: true, MaxTokens: 4}, e.Next())
	obs, st = step(t, e, say(e, 4, 2, 1))
	assert.Empty(t, obs)
	assert.True(t, st.Final)
	assert.True(t, e.Done())
	assert.Len(t, e.Steps(), 6)
	for i, s := range e.Steps() {
		assert.Equal(t, i, s.Turn)
	}
	_, _, err := e.Step(say(e, 1, 1, 1))
	assert.Error(t, err, "a step after the end")
}

// Malformed, repeated and out-of-range actions: each is a defined step with
// its own reply, never an error or a panic.
func TestBadActions(t *testing.T) {
	for _, tc := range []struct {
		name      string
		actions   func(e *Episode) [][]tasks.Token // played from the start
		obs       string                           // of the last action
		malformed bool
		repeat    bool
		z         int8
	}{
		{"empty query", func(e *Episode) [][]tasks.Token { return [][]tasks.Token{nil} }, "invalid guess", true, false, -1},
		{"unknown ids in a query", func(e *Episode) [][]tasks.Token {
			return [][]tasks.Token{{-3, 77, 1 << 20, 5}}
		}, "invalid guess", true, false, -1},
		{"movie out of range", func(e *Episode) [][]tasks.Token {
			return [][]tasks.Token{{e.t.tok.attr0, e.t.tok.attr0 + 1, e.t.tok.movie0, e.t.tok.movie0 + 6}}
		}, "invalid guess", true, false, -1},
		{"attribute out of range", func(e *Episode) [][]tasks.Token {
			return [][]tasks.Token{{e.t.tok.attr0, e.t.tok.attr0 + 3, e.t.tok.movie0, e.t.tok.movie0 + 1}}
		}, "invalid guess", true, false, -1},
		{"a guess in a query round", func(e *Episode) [][]tasks.Token { return [][]tasks.Token{say(e, 1, 2, 3)} }, "invalid guess", true, false, -1},
		{"a query in a guess round", func(e *Episode) [][]tasks.Token {
			return [][]tasks.Token{ask(e, []int{0, 1}, 0, 1), ask(e, []int{0, 1}, 0, 1)}
		}, "invalid ask", true, false, -1},
		{"level out of range", func(e *Episode) [][]tasks.Token {
			return [][]tasks.Token{ask(e, []int{0, 1}, 0, 1), {e.t.tok.num0 + 5, e.t.tok.num0, e.t.tok.num0}}
		}, "invalid ask", true, false, -1},
		{"overlong guess", func(e *Episode) [][]tasks.Token {
			return [][]tasks.Token{ask(e, []int{0, 1}, 0, 1), say(e, 1, 1, 1, 1)}
		}, "invalid ask", true, false, -1},
		{"repeated query", func(e *Episode) [][]tasks.Token {
			return [][]tasks.Token{ask(e, []int{0, 1}, 0, 1), say(e, 2, 2, 2), ask(e, []int{0, 1}, 0, 1)}
		}, "repeat guess", false, true, -1},
		{"repeated query, pair reversed, focus reordered", func(e *Episode) [][]tasks.Token {
			return [][]tasks.Token{ask(e, []int{0, 1}, 0, 1), say(e, 2, 2, 2), ask(e, []int{1, 0}, 1, 0)}
		}, "repeat guess", false, true, -1},
		{"same pair, another focus set is new", func(e *Episode) [][]tasks.Token {
			return [][]tasks.Token{ask(e, []int{0, 1}, 0, 1), say(e, 2, 2, 2), ask(e, []int{1, 2}, 0, 1)}
		}, "no guess", false, false, -1}, // d = (−4, 0): dominated
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := handEpisode(t, nil, nil)
			var obs []tasks.Token
			var st tasks.Step
			for _, a := range tc.actions(e) {
				obs, st = step(t, e, a)
			}
			assert.Equal(t, tc.obs, words(e, obs))
			assert.Equal(t, tc.malformed, st.Malformed)
			assert.Equal(t, tc.repeat, st.Repeat)
			assert.Equal(t, tc.z, st.Z)
		})
	}
}

// A malformed final answer scores 0; an invalid guess leaves the belief.
func TestMalformedFinal(t *testing.T) {
	e := handEpisode(t, nil, nil)
	for !e.Done() {
		if e.Next().Final {
			obs, st := step(t, e, nil)
			assert.Equal(t, "invalid", words(e, obs))
			assert.True(t, st.Malformed)
			assert.InDelta(t, cosine([]float64{4, 2, 1}, e.inst.truth), st.TruthMass, 1e-15)
			break
		}
		if e.Next().Kind == tasks.AS {
			step(t, e, nil)
		} else {
			step(t, e, say(e, 4, 2, 1))
		}
	}
	m := e.Measures()
	assert.Equal(t, 0.0, m.Reward)
	assert.False(t, m.Success)
	assert.Equal(t, 0.0, m.Evidence)
	assert.Equal(t, 4, m.Malformed)
	assert.Equal(t, 0.0, m.ASProxy)
	assert.Equal(t, 0.0, m.IAS, "no valid query: the posterior is the prior")
}

func TestMeasures(t *testing.T) {
	for _, reward := range []string{"binary", "cosine"} {
		t.Run(reward, func(t *testing.T) {
			e := handEpisode(t, func(c *Config) { c.Reward = reward }, nil)
			w := e.inst.truth
			c0 := cosine([]float64{2, 2, 2}, w) // the flat start
			c1 := cosine([]float64{0, 0, 4}, w)
			c2 := cosine([]float64{4, 2, 1}, w)
			step(t, e, ask(e, []int{0, 1}, 0, 1)) // informative: +1
			step(t, e, say(e, 0, 0, 4))           // cos falls
			step(t, e, ask(e, []int{0, 1}, 2, 3)) // dominated: −1
			step(t, e, say(e, 4, 2, 1))           // cos rises (z 0: after −1)
			step(t, e, ask(e, []int{1, 2}, 1, 2)) // informative: +1
			step(t, e, say(e, 4, 2, 1))           // final
			require.True(t, e.Done())
			m := e.Measures()
			assert.InDelta(t, 2.0/3, m.ASProxy, 1e-15)
			assert.InDelta(t, (c2-c0)/3, m.BTProxy, 1e-12, "mean cosine gain per guess round")
			assert.InDelta(t, c2-c1, m.CBT, 1e-12, "only the positive gain counts")
			assert.InDelta(t, c2, m.Evidence, 1e-15)
			assert.True(t, c2 > 0.88)
			assert.True(t, m.Success)
			if reward == "binary" {
				assert.Equal(t, 1.0, m.Reward)
			} else {
				assert.InDelta(t, c2, m.Reward, 1e-15)
			}
			// I_AS by brute force: the hypotheses that agree with both valid
			// replies, against all of them.
			qs := []Query{{[]int{0, 1}, 0, 1}, {[]int{0, 1}, 2, 3}, {[]int{1, 2}, 1, 2}}
			var post, prior []int32
			for h := 0; h < e.hyp.size(); h++ {
				prior = append(prior, int32(h))
				ok := true
				for _, q := range qs {
					ok = ok && reply(e.hyp.at(h), q, e.inst.table, 0.3) == reply(w, q, e.inst.table, 0.3)
				}
				if ok {
					post = append(post, int32(h))
				}
			}
			assert.InDelta(t, e.hyp.psi(post)-e.hyp.psi(prior), m.IAS, 1e-12)
			assert.Equal(t, []int8{1, -1, -1, 0, 1, 0}, zs(e.Steps()))
		})
	}
}

func zs(steps []tasks.Step) []int8 {
	out := make([]int8, len(steps))
	for i, s := range steps {
		out[i] = s.Z
	}
	return out
}

// The same configuration, split and index give the same tokens and steps; a
// different seed a different instance.
func TestDeterminism(t *testing.T) {
	cfg := fastConfig(t, "pe-g-s3", 256)
	a, b := newTask(t, cfg), newTask(t, cfg)
	cfg.Seed++
	c := newTask(t, cfg)
	for i := 0; i < 5; i++ {
		ea, err := a.NewEpisode(tasks.Train, i)
		require.NoError(t, err)
		eb, err := b.NewEpisode(tasks.Train, i)
		require.NoError(t, err)
		ec, err := c.NewEpisode(tasks.Train, i)
		require.NoError(t, err)
		assert.Equal(t, ea.Prompt(), eb.Prompt())
		assert.NotEqual(t, ea.Prompt(), ec.Prompt())
		pa, _ := a.Scripted(tasks.PolicySpec{Kind: "weak", QAS: 0.5, QBT: 0.5})
		pb, _ := b.Scripted(tasks.PolicySpec{Kind: "weak", QAS: 0.5, QBT: 0.5})
		ma, err := tasks.Play(ea, pa, rand.New(rand.NewPCG(3, uint64(i))), 100)
		require.NoError(t, err)
		mb, err := tasks.Play(eb, pb, rand.New(rand.NewPCG(3, uint64(i))), 100)
		require.NoError(t, err)
		// Sprint: AS steps carry TruthMass NaN, which is never == itself.
		assert.Equal(t, fmt.Sprint(ea.Steps()), fmt.Sprint(eb.Steps()))
		assert.Equal(t, fmt.Sprint(ma), fmt.Sprint(mb))
	}
}

// Train and test instances never coincide (their seeds are disjoint; here we
// check the drawn hidden states and tables too).
func TestSplitsDisjoint(t *testing.T) {
	task := newTask(t, fastConfig(t, "pe-f-d6", 16))
	seen := map[string]bool{}
	key := func(e *Episode) string { return words(e, e.Prompt()) + fmt.Sprint(e.Truth()) }
	for i := 0; i < 200; i++ {
		e, err := task.newEpisode(tasks.Train, i)
		require.NoError(t, err)
		seen[key(e)] = true
	}
	for i := 0; i < 200; i++ {
		e, err := task.newEpisode(tasks.Test, i)
		require.NoError(t, err)
		assert.False(t, seen[key(e)], "test instance %d equals a train instance", i)
	}
	_, err := task.NewEpisode(tasks.Test, -1)
	assert.Error(t, err)
}

// Every episode fits MaxTokens, and an agent that fills every turn with
// invalid tokens reaches it exactly (the bound is tight). The default
// settings fit in 256 tokens.
func TestMaxTokens(t *testing.T) {
	for _, name := range []string{"pe-g-s2", "pe-g-s3", "pe-f-d6", "pe-f-d8"} {
		t.Run(name, func(t *testing.T) {
			task := newTask(t, fastConfig(t, name, 256))
			assert.LessOrEqual(t, task.MaxTokens(), 256)
			rng := rand.New(rand.NewPCG(1, 2))
			for _, kind := range []string{"random", "weak", "strong"} {
				pol, err := task.Scripted(tasks.PolicySpec{Kind: kind, QAS: 0.5, QBT: 0.5})
				require.NoError(t, err)
				for i := 0; i < 5; i++ {
					ep, err := task.NewEpisode(tasks.Test, i)
					require.NoError(t, err)
					assert.LessOrEqual(t, streamLen(t, ep, pol, rng), task.MaxTokens())
				}
			}
			ep, err := task.NewEpisode(tasks.Test, 0)
			require.NoError(t, err)
			n := len(ep.Prompt())
			for !ep.Done() {
				junk := make([]tasks.Token, ep.Next().MaxTokens-1)
				for i := range junk {
					junk[i] = tasks.Pad
				}
				obs, _, err := ep.Step(junk)
				require.NoError(t, err)
				n += len(junk) + 1 + len(obs)
			}
			assert.Equal(t, task.MaxTokens(), n)
		})
	}
}

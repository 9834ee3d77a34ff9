// Package diagnosistest holds the checks that FloDial's and MediQ's tests
// share: the episode fuzz, the token budget, the scripted policies'
// evaluation and their errors, and hand-built scripts of turns.
package diagnosistest

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
	"arew/tasks/taskstest"
)

// FuzzEpisode feeds arbitrary token sequences to both parsers (queries and
// beliefs) of every task of all through taskstest.CheckEpisode, which
// holds the episode to the tasks contract (no panic, critiques in range,
// vocabulary, turn limit, MaxTokens); every episode also plays all its
// turns and has finite measures.
func FuzzEpisode(f *testing.F, all []tasks.Task, turns int, seeds ...[]byte) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, task := range all {
			ep, err := task.NewEpisode(tasks.Test, len(data)%7)
			require.NoError(t, err)
			m := taskstest.CheckEpisode(t, task, ep, taskstest.TurnsFromBytes(data), turns)
			assert.Equal(t, turns, m.Turns)
			assert.False(t, math.IsNaN(m.Evidence) || math.IsNaN(m.IAS) || math.IsNaN(m.CBT))
		}
	})
}

// TokenBudget plays 50 test episodes of task with random full-length
// turns (every other episode empty ones, malformed every turn): each
// prompt is promptLen tokens, each episode ends after turns turns within
// MaxTokens. It returns the length of an episode of full-length turns of
// <pad>, which must reach MaxTokens exactly.
func TokenBudget(t *testing.T, task tasks.Task, promptLen, turns int) int {
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range 50 {
		ep, err := task.NewEpisode(tasks.Test, i)
		require.NoError(t, err)
		n := len(ep.Prompt())
		assert.Equal(t, promptLen, n)
		for !ep.Done() {
			a := make([]tasks.Token, ep.Next().MaxTokens-1)
			for j := range a {
				a[j] = tasks.Token(rng.IntN(task.Vocab().Size()))
			}
			if i%2 == 0 {
				a = a[:0]
			}
			obs, _, err := ep.Step(a)
			require.NoError(t, err)
			n += len(a) + 1 + len(obs)
		}
		assert.LessOrEqual(t, n, task.MaxTokens())
		assert.Len(t, ep.Steps(), turns)
	}
	ep, err := task.NewEpisode(tasks.Test, 0)
	require.NoError(t, err)
	n := len(ep.Prompt())
	for !ep.Done() {
		a := make([]tasks.Token, ep.Next().MaxTokens-1)
		obs, _, err := ep.Step(a)
		require.NoError(t, err)
		n += len(a) + 1 + len(obs)
	}
	assert.Equal(t, task.MaxTokens(), n, "all-malformed episodes reach the bound")
	return n
}

// Evaluate is spec's summary on the first n test instances of task (seed
// 1), which has no malformed turn.
func Evaluate(t *testing.T, task tasks.Task, spec tasks.PolicySpec, n, turns int) tasks.Summary {
	pol, err := task.Scripted(spec)
	require.NoError(t, err)
	s, err := tasks.Evaluate(task, pol, tasks.Test, n, 1, turns)
	require.NoError(t, err)
	assert.Zero(t, s.Malformed, pol.Name())
	return s
}

// PolicyErrors: spec's policy of task a refuses an episode of task b, and
// an episode of a once it is over; that episode's measures are finite.
func PolicyErrors(t *testing.T, a, b tasks.Task, spec tasks.PolicySpec, turns int) {
	pol, err := a.Scripted(spec)
	require.NoError(t, err)
	ep, err := b.NewEpisode(tasks.Test, 0)
	require.NoError(t, err)
	_, err = pol.Act(ep, rand.New(rand.NewPCG(1, 1)))
	assert.Error(t, err, "episode of another task")
	own, err := a.NewEpisode(tasks.Test, 0)
	require.NoError(t, err)
	_, err = tasks.Play(own, pol, rand.New(rand.NewPCG(1, 1)), turns)
	require.NoError(t, err)
	_, err = pol.Act(own, rand.New(rand.NewPCG(1, 1)))
	assert.Error(t, err, "episode is over")
	assert.False(t, math.IsNaN(own.Measures().Evidence))
}

// Words encodes a, words of v separated by spaces; a word outside v
// becomes id 999.
func Words(v *tasks.Vocab, a string) []tasks.Token {
	var out []tasks.Token
	for _, w := range strings.Fields(a) {
		id, ok := v.Lookup(w)
		if !ok {
			id = 999
		}
		out = append(out, id)
	}
	return out
}

// Turn is one scripted turn of a hand-built episode: the agent's words and
// what the step must give.
type Turn struct {
	Action    string
	Z         int8
	TokenZ    []int8 // per-token critiques (nil: none)
	Reply     string // the observation's first word ("" for none)
	Malformed bool
	Repeat    bool
}

// Script plays script on ep (vocabulary v), checks every step and that
// the episode is then over.
func Script(t *testing.T, v *tasks.Vocab, ep tasks.Episode, script []Turn) {
	for i, s := range script {
		require.False(t, ep.Done(), "step %d", i)
		obs, st, err := ep.Step(Words(v, s.Action))
		require.NoError(t, err)
		assert.Equal(t, s.Z, st.Z, "step %d %q: %s", i, s.Action, st.Text)
		assert.Equal(t, s.TokenZ, st.TokenZ, "step %d %q: per-token critiques", i, s.Action)
		assert.Equal(t, s.Malformed, st.Malformed, "step %d", i)
		assert.Equal(t, s.Repeat, st.Repeat, "step %d", i)
		assert.Equal(t, i, st.Turn)
		if s.Reply == "" {
			assert.Empty(t, obs, "step %d", i)
		} else {
			require.NotEmpty(t, obs)
			assert.Equal(t, s.Reply, v.Word(obs[0]), "step %d", i)
		}
	}
	assert.True(t, ep.Done())
}

// Package diagnosistest holds the checks that FloDial's and MediQ's tests
// share: the episode fuzz, the token budget, the scripted policies'
// evaluation and their errors.
package diagnosistest

import (
	"math"
	"math/rand/v2"
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

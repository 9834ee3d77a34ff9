package pe

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"arew/tasks"
)

// tinyConfig is a PE-G setting small enough to reason about by hand:
// D = 3, S = 2, six movies, three query rounds, 64 particles.
func tinyConfig() Config {
	c := withShape(3, 2)
	c.Movies = 6
	c.Queries = 3
	c.Particles = 64
	c.MinInformative = 1
	return c
}

// fastConfig is a registered setting with fewer particles, for tests that
// play hundreds of episodes.
func fastConfig(t testing.TB, setting string, particles int) Config {
	c, err := DefaultConfig(setting)
	require.NoError(t, err)
	c.Particles = particles
	return c
}

func newTask(t testing.TB, cfg Config) *Task {
	task, err := New("test", cfg)
	require.NoError(t, err)
	return task
}

// The hand-built instance: w* = (0.6, 0.3, 0.1) and
//
//	m0: 4 0 0    m3: 1 1 1
//	m1: 0 4 0    m4: 2 2 0
//	m2: 2 2 2    m5: 1 4 0
func handInstance() instance {
	return instance{
		truth: []float64{0.6, 0.3, 0.1},
		table: [][]int{{4, 0, 0}, {0, 4, 0}, {2, 2, 2}, {1, 1, 1}, {2, 2, 0}, {1, 4, 0}},
	}
}

// handEpisode plays the hand-built instance of a tiny task whose hypothesis
// set is ws (nil: the task's own particles) followed by w*.
func handEpisode(t testing.TB, mut func(*Config), ws [][]float64) *Episode {
	c := tinyConfig()
	if mut != nil {
		mut(&c)
	}
	task := newTask(t, c)
	if ws == nil {
		for i := 0; i < task.parts.n; i++ {
			ws = append(ws, task.parts.at(i))
		}
	}
	inst := handInstance()
	inst.truthIdx = len(ws)
	return newEpisodeOn(task, inst, particlesFrom(c.Dims, append(ws, inst.truth)))
}

// ask renders a PE-G query (attributes, then the pair).
func ask(e *Episode, focus []int, a, b int) []tasks.Token {
	return e.t.EncodeQuery(Query{Focus: focus, A: a, B: b})
}

// say renders a guess.
func say(e *Episode, g ...int) []tasks.Token { return e.t.EncodeGuess(g) }

// step plays one turn and fails the test on an error.
func step(t testing.TB, e *Episode, action []tasks.Token) ([]tasks.Token, tasks.Step) {
	obs, st, err := e.Step(action)
	require.NoError(t, err)
	return obs, st
}

// words decodes tokens for readable assertions.
func words(e *Episode, toks []tasks.Token) string { return e.t.vocab.Decode(toks) }

// playAll runs n test episodes of a policy and returns their summary.
func playAll(t testing.TB, task *Task, spec tasks.PolicySpec, n int) tasks.Summary {
	pol, err := task.Scripted(spec)
	require.NoError(t, err)
	s, err := tasks.Evaluate(task, pol, tasks.Test, n, 7, task.TurnLimit())
	require.NoError(t, err)
	return s
}

// streamLen plays ep with pol and returns the length of its token stream.
func streamLen(t testing.TB, ep tasks.Episode, pol tasks.Policy, rng *rand.Rand) int {
	n := len(ep.Prompt())
	for !ep.Done() {
		a, err := pol.Act(ep, rng)
		require.NoError(t, err)
		obs, _, err := ep.Step(a)
		require.NoError(t, err)
		n += len(a) + 1 + len(obs)
	}
	return n
}

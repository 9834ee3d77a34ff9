// Package taskstest checks that a simulator keeps the tasks.Episode
// contract, whatever the agent generates. Every task's fuzz target feeds its
// bytes through TurnsFromBytes and CheckEpisode, so all tasks are held to
// the same promises: no error before the end, critiques in {−1, 0, +1},
// observation tokens inside the vocabulary, an end within the turn limit
// and within MaxTokens, one Step per turn, and an error after the end.
package taskstest

import (
	"math"
	"math/rand/v2"

	"arew/tasks"
)

// TurnSeparator ends a turn in fuzz input.
const TurnSeparator = 0xFE

// TurnsFromBytes splits fuzz bytes into agent turns: TurnSeparator ends a
// turn, every other byte is a token id read as a signed byte (so negative
// ids and ids past a small vocabulary both occur).
func TurnsFromBytes(data []byte) [][]tasks.Token {
	turns := [][]tasks.Token{{}}
	for _, b := range data {
		if b == TurnSeparator {
			turns = append(turns, []tasks.Token{})
			continue
		}
		last := len(turns) - 1
		turns[last] = append(turns[last], tasks.Token(int8(b)))
	}
	return turns
}

// T is the part of testing.TB that CheckEpisode uses (so its own tests can
// watch it fail). Fatalf must not return.
type T interface {
	Helper()
	Fatalf(format string, args ...any)
}

// CheckEpisode plays turns on ep (an empty turn once they run out), each cut
// to the turn's MaxTokens − 1 tokens as a rollout cuts it (the last place is
// the EOT), and fails t if the episode breaks the contract; maxTurns is the
// task's turn limit. It returns the episode's measures.
func CheckEpisode(t T, task tasks.Task, ep tasks.Episode, turns [][]tasks.Token, maxTurns int) tasks.Measures {
	t.Helper()
	vocab := task.Vocab().Size()
	checkTokens := func(what string, toks []tasks.Token) {
		for _, tok := range toks {
			if tok < 0 || int(tok) >= vocab {
				t.Fatalf("%s token %d outside the vocabulary of %d", what, tok, vocab)
			}
		}
	}
	prompt := ep.Prompt()
	checkTokens("prompt", prompt)
	if len(prompt) == 0 || prompt[0] != tasks.BOS {
		t.Fatalf("the prompt must start with BOS")
	}
	n := len(prompt)
	turn := 0
	for ; !ep.Done(); turn++ {
		if turn >= maxTurns {
			t.Fatalf("the episode is still running after %d turns", maxTurns)
		}
		var action []tasks.Token
		if turn < len(turns) {
			action = turns[turn]
		}
		limit := ep.Next().MaxTokens
		if limit < 1 {
			t.Fatalf("turn %d allows %d tokens; it must allow at least the EOT", turn, limit)
		}
		if len(action) > limit-1 {
			action = action[:limit-1]
		}
		obs, st, err := ep.Step(action)
		if err != nil {
			t.Fatalf("turn %d: %v", turn, err)
		}
		if st.Z < -1 || st.Z > 1 {
			t.Fatalf("turn %d: critique %d", turn, st.Z)
		}
		if st.Turn != turn {
			t.Fatalf("turn %d: the step says turn %d", turn, st.Turn)
		}
		checkTokens("observation", obs)
		n += len(action) + 1 + len(obs)
	}
	if n > task.MaxTokens() {
		t.Fatalf("the stream has %d tokens, more than MaxTokens %d", n, task.MaxTokens())
	}
	if got := len(ep.Steps()); got != turn {
		t.Fatalf("%d steps for %d turns", got, turn)
	}
	if _, _, err := ep.Step(nil); err == nil {
		t.Fatalf("Step after the end must be an error")
	}
	m := ep.Measures()
	if m.Turns != turn {
		t.Fatalf("measures count %d turns, the episode took %d", m.Turns, turn)
	}
	if math.IsNaN(m.Reward) || math.IsNaN(m.ASProxy) || math.IsNaN(m.IAS) {
		t.Fatalf("reward, AS proxy and I_AS must be numbers: %+v", m)
	}
	return m
}

// Stream plays the scripted policy spec on instance index of split, its
// choices drawn from a generator seeded with (seed, index), and returns the
// episode's whole token stream: prompt, then per turn the action, EOT and
// the observation. Two calls with the same arguments must return the same
// stream; that is how the tasks test their determinism.
func Stream(t T, task tasks.Task, spec tasks.PolicySpec, split tasks.Split, index int, seed uint64) []tasks.Token {
	t.Helper()
	ep, err := task.NewEpisode(split, index)
	if err != nil {
		t.Fatalf("episode %v/%d: %v", split, index, err)
	}
	pol, err := task.Scripted(spec)
	if err != nil {
		t.Fatalf("policy %+v: %v", spec, err)
	}
	rng := rand.New(rand.NewPCG(seed, uint64(index)))
	stream := ep.Prompt()
	for !ep.Done() {
		a, err := pol.Act(ep, rng)
		if err != nil {
			t.Fatalf("act: %v", err)
		}
		obs, _, err := ep.Step(a)
		if err != nil {
			t.Fatalf("step: %v", err)
		}
		stream = append(append(append(stream, a...), tasks.EOT), obs...)
	}
	return stream
}

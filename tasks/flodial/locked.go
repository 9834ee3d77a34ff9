package flodial

import (
	"fmt"
	"math/rand/v2"

	"arew/tasks"
)

// lockedMoves are FloDial's moves for the shared locked demonstrator
// (tasks.NewLocked): the strong question, a question that cannot split C
// (weak's uninformative question), the Bayes levels, and the held levels.
type lockedMoves struct{ *episode }

// lockedMovesOf returns ep's moves, or an error when ep is not an episode
// of t.
func (t *Task) lockedMovesOf(ep tasks.Episode) (tasks.LockedMoves, error) {
	e, ok := ep.(*episode)
	if !ok || e.t != t {
		return nil, fmt.Errorf("flodial policy: episode of another task (%T)", ep)
	}
	return lockedMoves{e}, nil
}

func (m lockedMoves) question(q int) []tasks.Token { return []tasks.Token{m.t.q0 + tasks.Token(q)} }

func (m lockedMoves) StrongQuery(rng *rand.Rand) []tasks.Token {
	return m.question(strongQuestion(m.episode, rng))
}

func (m lockedMoves) LockedQuery(rng *rand.Rand) []tasks.Token {
	return m.question(uninformativeQuestion(m.episode, rng))
}

func (m lockedMoves) BayesBelief(final bool, rng *rand.Rand) []tasks.Token {
	return m.t.levels.Encode(bayesLevels(m.episode, final, rng))
}

func (m lockedMoves) HeldBelief(final bool) []tasks.Token {
	return m.t.levels.Encode(m.t.levels.Held(m.statedLevels, m.t.cfg.Faults, final))
}

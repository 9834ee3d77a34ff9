package mediq

import (
	"fmt"
	"math/rand/v2"

	"arew/tasks"
)

// lockedMoves are MediQ's moves for the shared locked demonstrator
// (tasks.NewLocked): the strong finding, a finding that is not pertinent to
// the four options (weak's uninformative one: it carries no information,
// so it cannot split C), the strong policy's belief, and the held belief.
type lockedMoves struct{ *episode }

// lockedMovesOf returns ep's moves, or an error when ep is not an episode
// of t.
func (t *Task) lockedMovesOf(ep tasks.Episode) (tasks.LockedMoves, error) {
	e, ok := ep.(*episode)
	if !ok || e.t != t {
		return nil, fmt.Errorf("mediq policy: episode of another task (%T)", ep)
	}
	return lockedMoves{e}, nil
}

func (m lockedMoves) finding(f int) []tasks.Token { return []tasks.Token{m.t.fn0 + tasks.Token(f)} }

func (m lockedMoves) StrongQuery(rng *rand.Rand) []tasks.Token {
	return m.finding(strongFinding(m.episode, rng))
}

func (m lockedMoves) LockedQuery(rng *rand.Rand) []tasks.Token {
	return m.finding(uninformativeFinding(m.episode, rng))
}

// BayesBelief is the strong policy's: the exact posterior, and as
// counterfactual the posterior before the query.
func (m lockedMoves) BayesBelief(final bool, rng *rand.Rand) []tasks.Token {
	e := m.episode
	return m.belief(bayesLevels(e, e.post, final, rng), bayesLevels(e, e.prePost, false, rng))
}

// HeldBelief is the last stated real belief held (flat, every option at
// the top level, before the first; a unique top on its first top option
// when final), and the same belief as counterfactual: it ignores the reply.
func (m lockedMoves) HeldBelief(final bool) []tasks.Token {
	held := m.t.levels.Held(m.statedLevels, 4, final)
	return m.belief(held, held)
}

// belief encodes "real <cf> counterfactual".
func (m lockedMoves) belief(real, cf []int) []tasks.Token {
	out := append(m.t.levels.Encode(real), m.t.cf)
	return append(out, m.t.levels.Encode(cf)...)
}

package pe

import (
	"fmt"
	"math/rand/v2"

	"arew/tasks"
)

// lockedMoves are PE's moves for the shared locked demonstrator
// (tasks.NewLocked): the strong query, a dominated query (lockedQuery), the
// quantised posterior mean, and the last stated guess held.
type lockedMoves struct{ *Episode }

// lockedMovesOf returns ep's moves, or an error when ep is not an episode
// of t.
func (t *Task) lockedMovesOf(ep tasks.Episode) (tasks.LockedMoves, error) {
	e, ok := ep.(*Episode)
	if !ok || e.t != t {
		return nil, fmt.Errorf("pe locked policy: the episode is not one of task %s", t.name)
	}
	return lockedMoves{e}, nil
}

func (m lockedMoves) StrongQuery(*rand.Rand) []tasks.Token { return m.t.EncodeQuery(m.bestQuery()) }

func (m lockedMoves) LockedQuery(rng *rand.Rand) []tasks.Token {
	return m.t.EncodeQuery(m.lockedQuery(rng))
}

func (m lockedMoves) BayesBelief(bool, *rand.Rand) []tasks.Token {
	return m.t.EncodeGuess(m.posteriorGuess())
}

// HeldBelief is the last valid stated guess: the flat guess before the
// first (every attribute at the middle level), a valid final answer too.
func (m lockedMoves) HeldBelief(bool) []tasks.Token { return m.t.EncodeGuess(m.belief) }

// lockedQuery is a uniformly random new query whose pair is dominated on
// its focus set (pair order random). Every hypothesis with positive
// weights gives such a query the same reply (doc.go, "The rules"), and the
// default prior's are all positive (hypotheses.allPositive), so it cannot
// split C. When no dominated query is left, a random new query.
func (e *Episode) lockedQuery(rng *rand.Rand) Query {
	var pool []int
	for i := 0; i < e.t.qs.size(); i++ {
		if !e.asked[i] && dominated(e.t.qs.query(i), e.inst.table) {
			pool = append(pool, i)
		}
	}
	if len(pool) == 0 {
		return e.randomQuery(rng, false)
	}
	q := e.t.qs.query(pool[rng.IntN(len(pool))])
	if rng.IntN(2) == 0 {
		q.A, q.B = q.B, q.A
	}
	return q
}

package tasks

import (
	"fmt"
	"math/rand/v2"
)

// LockedMoves are what a task gives the locked demonstrator: its four moves
// in one episode, each as the agent's tokens for the current turn (EOT
// excluded). A task builds them around its own episode type.
type LockedMoves interface {
	// QueryTurn and FinalTurn say which turn is next (tasks.Rounds has both).
	QueryTurn() bool
	FinalTurn() bool
	// StrongQuery is the strong policy's query.
	StrongQuery(rng *rand.Rand) []Token
	// LockedQuery is a new query that cannot split the consistent set C
	// (its reply rules out no hypothesis still consistent); a task may fall
	// back to any query only when no such query is left, and documents it.
	LockedQuery(rng *rand.Rand) []Token
	// BayesBelief is the strong policy's belief: the exact posterior in the
	// task's belief format (final: the scored answer).
	BayesBelief(final bool, rng *rand.Rand) []Token
	// HeldBelief is the last stated belief held, the task's initial belief
	// before the first (final: made a valid answer, e.g. with a unique top).
	HeldBelief(final bool) []Token
}

// NewLocked is the locked(q_AS, q_BT) demonstrator of spec (Kind "locked")
// over a task's moves: moves(ep) returns the moves of an episode of the
// task, or an error when ep is not one. On a query turn it draws u ~ U[0, 1)
// and asks the strong query if u < q_AS, else the locked one; on a belief
// turn it draws u and states the Bayes belief if u < q_BT, else the held
// one. One draw per turn before the move's own, so with the knobs at 0 it
// is deterministic up to the locked query's choice, and with both at 1 it
// plays the strong policy's moves.
func NewLocked(spec PolicySpec, moves func(Episode) (LockedMoves, error)) (Policy, error) {
	if spec.Kind != "locked" {
		return nil, fmt.Errorf("locked policy: kind %q", spec.Kind)
	}
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	return &locked{spec: spec, moves: moves}, nil
}

type locked struct {
	spec  PolicySpec
	moves func(Episode) (LockedMoves, error)
}

func (p *locked) Name() string { return fmt.Sprintf("locked(%.2f,%.2f)", p.spec.QAS, p.spec.QBT) }

// Act plays the current turn of ep.
func (p *locked) Act(ep Episode, rng *rand.Rand) ([]Token, error) {
	m, err := p.moves(ep)
	if err != nil {
		return nil, err
	}
	if ep.Done() {
		return nil, fmt.Errorf("%s: the episode is over", p.Name())
	}
	if m.QueryTurn() {
		if rng.Float64() < p.spec.QAS {
			return m.StrongQuery(rng), nil
		}
		return m.LockedQuery(rng), nil
	}
	final := m.FinalTurn()
	if rng.Float64() < p.spec.QBT {
		return m.BayesBelief(final, rng), nil
	}
	return m.HeldBelief(final), nil
}

// Held is the locked demonstrator's held belief in a level format over n
// hypotheses: the last stated levels (nil before the first: the flat
// belief, every hypothesis at the top level, "no idea" as a valid belief);
// when final, with a unique top on the first hypothesis of the held top
// set, so the answer is valid and constant.
func (f LevelFormat) Held(stated []int, n int, final bool) []int {
	held := stated
	if held == nil {
		held = make([]int, n)
		for h := range held {
			held[h] = f.Levels - 1
		}
	}
	if !final {
		return append([]int(nil), held...)
	}
	top := 0
	for h, l := range held {
		if l > held[top] {
			top = h
		}
	}
	return f.WithTop(held, top)
}

package diagnosis

import (
	"fmt"
	"math/rand/v2"

	"arew/tasks"
)

// Moves are an episode as the scripted policies see it. Queries are
// numbered 0 … len(Asked())−1; beliefs are levels over the K hypotheses.
type Moves interface {
	QueryTurn() bool // tasks.Rounds
	FinalTurn() bool
	Round() int
	Asked() []bool          // the queries already asked (or known)
	Gain(q int) float64     // q's expected information gain under the exact posterior
	Informative(q int) bool // whether q's reply can split the consistent set C
	// Posterior is the exact posterior now and before the last query (had
	// its reply carried nothing).
	Posterior() (now, beforeQuery tasks.Belief)
	Stated() []int // the last valid stated belief's levels, nil before the first
	Query(q int) []tasks.Token
	// Belief is a belief turn stating real, and prev where the task states
	// a counterfactual (MediQ).
	Belief(real, prev []int) []tasks.Token
}

// Scripted returns the scripted policy of spec (tasks.PolicySpec; the
// tasks' doc.go, "Scripted policies and baselines", describes each):
// random, weak(q_as, q_bt), strong, constant (on the best constant
// answer of the train split's first 2,000 instances) and the shared
// locked(q_as, q_bt) (tasks.NewLocked). Every belief that has no
// counterfactual of its own states itself as one.
func (d *Dialogue) Scripted(spec tasks.PolicySpec) (tasks.Policy, error) {
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", d.Name, err)
	}
	p := &policy{d: d, spec: spec, name: spec.Kind}
	switch spec.Kind {
	case "random", "strong":
		return p, nil
	case "weak":
		p.name = fmt.Sprintf("weak(%.2f,%.2f)", spec.QAS, spec.QBT)
		return p, nil
	case "locked":
		return tasks.NewLocked(spec, func(ep tasks.Episode) (tasks.LockedMoves, error) {
			m, err := d.Moves(ep)
			if err != nil {
				return nil, err
			}
			return locked{m, d}, nil
		})
	case "constant":
		d.constOnce.Do(func() { d.constant, _, d.constErr = d.bestConstant(tasks.Train, 2000) })
		if d.constErr != nil {
			return nil, d.constErr
		}
		p.name = "constant(" + d.Answer(d.constant) + ")"
		return p, nil
	}
	return nil, fmt.Errorf("%s: unknown policy kind %q", d.Name, spec.Kind)
}

type policy struct {
	d    *Dialogue
	spec tasks.PolicySpec
	name string
}

func (p *policy) Name() string { return p.name }

// Act returns the policy's tokens for the current turn (EOT excluded).
func (p *policy) Act(ep tasks.Episode, rng *rand.Rand) ([]tasks.Token, error) {
	m, err := p.d.Moves(ep)
	if err != nil {
		return nil, err
	}
	if ep.Done() {
		return nil, fmt.Errorf("%s policy: the episode is over", p.d.Name)
	}
	kind, k := p.spec.Kind, p.d.Hypotheses
	weak := kind == "weak"
	if m.QueryTurn() {
		var q int
		switch n := len(m.Asked()); {
		case kind == "strong" || (weak && rng.Float64() < p.spec.QAS):
			q = strongQuery(m, rng)
		case kind == "constant":
			q = m.Round() % n
		case weak:
			q = uninformativeQuery(m, rng)
		default:
			q = rng.IntN(n)
		}
		return m.Query(q), nil
	}
	var real, prev []int
	switch stated := m.Stated(); {
	case kind == "strong" || (weak && rng.Float64() < p.spec.QBT):
		return p.d.bayesBelief(m, m.FinalTurn(), rng), nil
	case kind == "constant":
		real = p.d.Levels.OneHot(k, p.d.constant)
	case kind == "random" && stated != nil:
		real = stated
	case weak && stated != nil:
		real, prev = append([]int(nil), stated...), stated // stay put …
		if rng.IntN(2) == 0 {
			real = drift(real, p.d.Levels.Levels, rng) // … or drift
		}
	default:
		real = p.d.Levels.OneHot(k, rng.IntN(k))
	}
	if prev == nil {
		prev = real
	}
	return m.Belief(real, prev), nil
}

// drift moves one random hypothesis's level by ±1 within [0, levels),
// keeping some mass somewhere.
func drift(l []int, levels int, rng *rand.Rand) []int {
	h, d := rng.IntN(len(l)), 2*rng.IntN(2)-1
	old := l[h]
	l[h] = min(max(old+d, 0), levels-1)
	for _, x := range l {
		if x > 0 {
			return l
		}
	}
	l[h] = old
	return l
}

// strongQuery is the unasked query of largest Gain (ties broken at
// random); once every query was asked, a random one.
func strongQuery(m Moves, rng *rand.Rand) int {
	best, bestIG, ties := -1, -1.0, 0
	for q, asked := range m.Asked() {
		if asked {
			continue
		}
		ig := m.Gain(q)
		switch {
		case ig > bestIG+1e-12:
			best, bestIG, ties = q, ig, 1
		case ig > bestIG-1e-12:
			ties++
			if rng.IntN(ties) == 0 {
				best = q
			}
		}
	}
	if best < 0 {
		return rng.IntN(len(m.Asked()))
	}
	return best
}

// uninformativeQuery is a random unasked query that cannot split C; a
// random query when every unasked one could.
func uninformativeQuery(m Moves, rng *rand.Rand) int {
	var pool []int
	for q, asked := range m.Asked() {
		if !asked && !m.Informative(q) {
			pool = append(pool, q)
		}
	}
	if len(pool) == 0 {
		return rng.IntN(len(m.Asked()))
	}
	return pool[rng.IntN(len(pool))]
}

// BayesLevels is belief b as levels of f; a final answer gets a unique top
// on a random member of b's top set.
func BayesLevels(f tasks.LevelFormat, b tasks.Belief, final bool, rng *rand.Rand) []int {
	levels := f.Quantize(b)
	if !final {
		return levels
	}
	top := tasks.TopSet(b)
	return f.WithTop(levels, top[rng.IntN(len(top))])
}

// bayesBelief is the strong belief: the exact posterior, and as
// counterfactual the posterior before the query.
func (d *Dialogue) bayesBelief(m Moves, final bool, rng *rand.Rand) []tasks.Token {
	now, before := m.Posterior()
	real := BayesLevels(d.Levels, now, final, rng)
	return m.Belief(real, BayesLevels(d.Levels, before, false, rng))
}

// locked gives the shared locked demonstrator an episode's moves: the
// strong query, an uninformative one, the strong belief, and the last
// stated belief held (tasks.LevelFormat.Held), its own counterfactual.
type locked struct {
	Moves
	d *Dialogue
}

func (l locked) StrongQuery(rng *rand.Rand) []tasks.Token { return l.Query(strongQuery(l, rng)) }
func (l locked) LockedQuery(rng *rand.Rand) []tasks.Token { return l.Query(uninformativeQuery(l, rng)) }
func (l locked) BayesBelief(final bool, rng *rand.Rand) []tasks.Token {
	return l.d.bayesBelief(l, final, rng)
}
func (l locked) HeldBelief(final bool) []tasks.Token {
	held := l.d.Levels.Held(l.Stated(), l.d.Hypotheses, final)
	return l.Belief(held, held)
}

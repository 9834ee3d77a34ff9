package pe

import (
	"fmt"
	"math/rand/v2"

	"arew/tasks"
)

// Scripted returns a scripted policy (doc.go describes each):
//
//	random:   a uniformly random new query, a uniformly random guess
//	weak:     with prob. QAS a random non-dominated new query, else a random
//	          new query; with prob. QBT the quantised posterior mean, else the
//	          previous belief kept (½) or drifted by one level on one
//	          attribute (½)
//	strong:   the new query of maximum reply entropy under the exact
//	          posterior, and the quantised posterior mean
//	constant: random new queries, and always the best constant guess of the
//	          train split
func (t *Task) Scripted(spec tasks.PolicySpec) (tasks.Policy, error) {
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("pe: %w", err)
	}
	switch spec.Kind {
	case "random", "strong":
		return &policy{t: t, kind: spec.Kind}, nil
	case "weak":
		return &policy{t: t, kind: "weak", qas: spec.QAS, qbt: spec.QBT}, nil
	case "locked":
		return tasks.NewLocked(spec, t.lockedMovesOf)
	case "constant":
		g, err := t.constantGuess()
		if err != nil {
			return nil, err
		}
		return &policy{t: t, kind: "constant", constant: g}, nil
	}
	return nil, fmt.Errorf("pe: unknown policy kind %q (want random, weak, strong, constant or locked)", spec.Kind)
}

type policy struct {
	t        *Task
	kind     string
	qas, qbt float64
	constant []int
}

func (p *policy) Name() string {
	if p.kind == "weak" {
		return fmt.Sprintf("weak(%.2g,%.2g)", p.qas, p.qbt)
	}
	return p.kind
}

// Act returns the policy's tokens for the current turn of ep, which must be
// an episode of the policy's task.
func (p *policy) Act(ep tasks.Episode, rng *rand.Rand) ([]tasks.Token, error) {
	e, ok := ep.(*Episode)
	if !ok || e.t != p.t {
		return nil, fmt.Errorf("pe %s policy: the episode is not one of task %s", p.kind, p.t.name)
	}
	if e.Done() {
		return nil, fmt.Errorf("pe %s policy: the episode is over", p.kind)
	}
	if e.QueryTurn() {
		return p.t.EncodeQuery(p.query(e, rng)), nil
	}
	return p.t.EncodeGuess(p.guess(e, rng)), nil
}

func (p *policy) query(e *Episode, rng *rand.Rand) Query {
	switch p.kind {
	case "strong":
		return e.bestQuery()
	case "weak":
		if rng.Float64() < p.qas {
			return e.randomQuery(rng, true)
		}
	}
	return e.randomQuery(rng, false)
}

func (p *policy) guess(e *Episode, rng *rand.Rand) []int {
	switch p.kind {
	case "strong":
		return e.posteriorGuess()
	case "constant":
		return append([]int(nil), p.constant...)
	case "weak":
		if rng.Float64() < p.qbt {
			return e.posteriorGuess()
		}
		if rng.IntN(2) == 0 {
			return e.Belief()
		}
		return drift(e.Belief(), p.t.cfg.GuessLevels, rng)
	}
	return randomGuess(p.t.cfg, rng)
}

// randomQuery draws a new (not yet asked) query uniformly, among the
// non-dominated ones if informative is set and there is one; the pair comes
// in a random order. When every query has been asked it returns a repeat.
func (e *Episode) randomQuery(rng *rand.Rand, informative bool) Query {
	var pool []int
	for i := 0; i < e.t.qs.size(); i++ {
		if !e.asked[i] {
			pool = append(pool, i)
		}
	}
	if informative {
		var nd []int
		for _, i := range pool {
			if !dominated(e.t.qs.query(i), e.inst.table) {
				nd = append(nd, i)
			}
		}
		if len(nd) > 0 {
			pool = nd
		}
	}
	idx := rng.IntN(e.t.qs.size())
	if len(pool) > 0 {
		idx = pool[rng.IntN(len(pool))]
	}
	q := e.t.qs.query(idx)
	if rng.IntN(2) == 0 {
		q.A, q.B = q.B, q.A
	}
	return q
}

// bestQuery is the new query whose reply has the largest entropy under the
// exact posterior (uniform on the consistent set): greedy information gain,
// since replies are deterministic given w. Ties prefer a non-dominated query,
// then the lowest canonical index.
func (e *Episode) bestQuery() Query {
	if e.diffs == nil {
		e.diffs = newQueryDiffs(e.t.qs, e.inst.table, e.hyp.allPositive())
	}
	ent := e.hyp.replyEntropies(e.consistent, e.diffs, e.t.cfg.EqualTol)
	best, bestEnt, bestND := -1, -1.0, false
	for i, h := range ent {
		if e.asked[i] {
			continue
		}
		// Prefer a non-dominated query among equal entropies: once the
		// particles agree on everything, it still informs in the continuum.
		nd := !dominated(e.t.qs.query(i), e.inst.table)
		if h > bestEnt || (h == bestEnt && nd && !bestND) {
			best, bestEnt, bestND = i, h, nd
		}
	}
	if best < 0 { // every query asked: any repeat will do
		best = 0
	}
	return e.t.qs.query(best)
}

// posteriorGuess is the exact posterior's mean direction, quantised: among
// the roundings of the mean (quantize's candidates) and of the consistent
// hypotheses themselves, the guess closest in cosine to the mean that
// reproduces every reply so far; if none does, the plain rounding of the
// mean. (Rounding alone can cross a reply's boundary: ~15% of the plain
// roundings contradicted some reply in the default settings.)
func (e *Episode) posteriorGuess() []int {
	m := e.hyp.meanDirection(e.consistent)
	L := e.t.cfg.GuessLevels
	var best []int
	bestCos := -1.0
	try := func(g []int) {
		if c := cosine(toFloat(g), m); c > bestCos && e.consistentGuess(g) {
			best, bestCos = g, c
		}
	}
	for _, g := range roundings(m, L) {
		try(g)
	}
	if len(e.consistent) <= maxGuessCandidates {
		for _, i := range e.consistent {
			for _, g := range roundings(e.hyp.unitAt(int(i)), L) {
				try(g)
			}
		}
	}
	if best == nil {
		return quantize(m, L)
	}
	return best
}

// maxGuessCandidates bounds the consistent hypotheses whose roundings the
// strong guess considers.
const maxGuessCandidates = 512

// randomGuess draws every level uniformly, redrawing the zero vector.
func randomGuess(c Config, rng *rand.Rand) []int {
	g := make([]int, c.Dims)
	for {
		nz := false
		for i := range g {
			g[i] = rng.IntN(c.GuessLevels)
			nz = nz || g[i] > 0
		}
		if nz {
			return g
		}
	}
}

// drift moves one random attribute of g one level up or down (within
// 0..levels−1), keeping g non-zero.
func drift(g []int, levels int, rng *rand.Rand) []int {
	k := rng.IntN(len(g))
	old := g[k]
	if rng.IntN(2) == 0 {
		g[k] = min(g[k]+1, levels-1)
	} else {
		g[k] = max(g[k]-1, 0)
	}
	if !nonzero(g) {
		g[k] = old
	}
	return g
}

func nonzero(g []int) bool {
	for _, x := range g {
		if x > 0 {
			return true
		}
	}
	return false
}

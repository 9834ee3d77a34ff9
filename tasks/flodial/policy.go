package flodial

import (
	"fmt"
	"math/rand/v2"

	"arew/tasks"
)

// Scripted returns a scripted policy (see tasks.PolicySpec):
//   - random: a uniformly random question (repeats possible); its first
//     belief is on one uniformly random fault and it keeps that belief (an
//     uninformed guess that does not oscillate, so C_BT, which sums positive
//     changes, is not inflated by noise);
//   - weak(q_as, q_bt): with probability q_as the strong policy's question,
//     else an uninformative one (a random unasked question that cannot split
//     C, as the prototype's locked demonstrator asked; a random question if
//     none is left); with probability q_bt the exact-Bayes belief, else with
//     even odds the previous stated belief (stay put) or that belief with one
//     random fault's level moved by ±1 (drift; the first belief is on a
//     random fault). With low knobs it sits in the self-locking region: low
//     AS proxy and I_AS, low BT proxy and C_BT;
//   - strong: the question of largest expected information gain among those
//     not yet asked, and the exact Bayes posterior (flat on C; the final
//     answer raises one member of C, chosen at random, to the top level);
//   - constant: questions q0, q1, … in order and every belief on the best
//     constant fault of the train split (2,000 instances).
//   - locked(q_as, q_bt): the confidently uninformed demonstrator shared by
//     the tasks (tasks.NewLocked; locked.go gives it FloDial's moves), well
//     formed on every turn. Its questions are weak's (the strong question
//     with probability q_as, else one that cannot split C); with
//     probability q_bt its belief is the exact-Bayes one, else it holds the
//     last stated belief, which before any Bayes belief is the flat one
//     (every fault at the top level: "no idea", a valid belief); its final
//     answer holds too, with a unique top on the first fault of the held
//     top set (fault 0 after flat beliefs). Unlike weak, it never drifts and
//     never guesses at random, so an imitation of it is confident rather
//     than noisy: the stand-in for a model that could but does not.
func (t *Task) Scripted(spec tasks.PolicySpec) (tasks.Policy, error) {
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("flodial: %w", err)
	}
	switch spec.Kind {
	case "random", "strong":
		return &policy{t: t, spec: spec, name: spec.Kind}, nil
	case "weak":
		return &policy{t: t, spec: spec, name: fmt.Sprintf("weak(%.2f,%.2f)", spec.QAS, spec.QBT)}, nil
	case "locked":
		return tasks.NewLocked(spec, t.lockedMovesOf)
	case "constant":
		t.constOnce.Do(func() { t.constant, _, t.constErr = t.bestConstant(tasks.Train, 2000) })
		if t.constErr != nil {
			return nil, t.constErr
		}
		return &policy{t: t, spec: spec, name: fmt.Sprintf("constant(fault%d)", t.constant)}, nil
	}
	return nil, fmt.Errorf("flodial: unknown policy kind %q", spec.Kind)
}

type policy struct {
	t    *Task
	spec tasks.PolicySpec
	name string
}

func (p *policy) Name() string { return p.name }

// Act returns the policy's tokens for the current turn (EOT excluded).
func (p *policy) Act(ep tasks.Episode, rng *rand.Rand) ([]tasks.Token, error) {
	e, ok := ep.(*episode)
	if !ok || e.t != p.t {
		return nil, fmt.Errorf("flodial policy: episode of another task (%T)", ep)
	}
	if e.Done() {
		return nil, fmt.Errorf("flodial policy: the episode is over")
	}
	t := p.t
	weak := p.spec.Kind == "weak"
	if e.QueryTurn() {
		var q int
		switch {
		case p.spec.Kind == "strong" || (weak && rng.Float64() < p.spec.QAS):
			q = strongQuestion(e, rng)
		case p.spec.Kind == "constant":
			q = (e.Round()) % t.cfg.Questions
		case weak:
			q = uninformativeQuestion(e, rng)
		default:
			q = rng.IntN(t.cfg.Questions)
		}
		return []tasks.Token{t.q0 + tasks.Token(q)}, nil
	}
	final, k := e.FinalTurn(), t.cfg.Faults
	var levels []int
	switch {
	case p.spec.Kind == "strong" || (weak && rng.Float64() < p.spec.QBT):
		levels = bayesLevels(e, final, rng)
	case p.spec.Kind == "constant":
		levels = t.levels.OneHot(k, t.constant)
	case p.spec.Kind == "random" && e.statedLevels != nil:
		levels = e.statedLevels
	case p.spec.Kind == "weak" && e.statedLevels != nil:
		levels = append([]int(nil), e.statedLevels...) // stay put …
		if rng.IntN(2) == 0 {
			levels = drift(levels, t.cfg.Levels, rng) // … or drift
		}
	default:
		levels = t.levels.OneHot(k, rng.IntN(k))
	}
	return t.levels.Encode(levels), nil
}

// drift moves one random fault's level by ±1 within [0, levels), keeping
// some mass somewhere.
func drift(l []int, levels int, rng *rand.Rand) []int {
	f, d := rng.IntN(len(l)), 2*rng.IntN(2)-1
	old := l[f]
	l[f] = min(max(old+d, 0), levels-1)
	for _, x := range l {
		if x > 0 {
			return l
		}
	}
	l[f] = old
	return l
}

// uninformativeQuestion is a random unasked question that cannot split the
// consistent set; a random question when every unasked one would split it.
func uninformativeQuestion(e *episode, rng *rand.Rand) int {
	var pool []int
	for q, asked := range e.asked {
		if !asked && !tasks.Splits(e.post, flat, 3, e.inst.lik(q)) {
			pool = append(pool, q)
		}
	}
	if len(pool) == 0 {
		return rng.IntN(len(e.asked))
	}
	return pool[rng.IntN(len(pool))]
}

// strongQuestion is the unasked question of largest expected information
// gain under the exact posterior (ties broken at random); once every
// question was asked, a random one.
func strongQuestion(e *episode, rng *rand.Rand) int {
	best, bestIG, ties := -1, -1.0, 0
	for q, asked := range e.asked {
		if asked {
			continue
		}
		ig := tasks.MutualInformation(e.post, 3, e.inst.lik(q))
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
		return rng.IntN(len(e.asked))
	}
	return best
}

// bayesLevels is the exact posterior as levels; a final answer gets a unique
// top on a random member of the top set.
func bayesLevels(e *episode, final bool, rng *rand.Rand) []int {
	levels := e.t.levels.Quantize(e.post)
	if !final {
		return levels
	}
	top := tasks.TopSet(e.post)
	return e.t.levels.WithTop(levels, top[rng.IntN(len(top))])
}

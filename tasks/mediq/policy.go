package mediq

import (
	"fmt"
	"math/rand/v2"

	"arew/tasks"
)

// Scripted returns a scripted policy (see tasks.PolicySpec). Every belief is
// "real <cf> counterfactual":
//   - random: a uniformly random finding (repeats possible); its first
//     belief is on one uniformly random option and it keeps it; the
//     counterfactual equals the real belief;
//   - weak(q_as, q_bt): with probability q_as the strong policy's question,
//     else an unasked finding that carries no information about the four
//     options (a random one if none is left); with probability q_bt the
//     strong policy's belief, else with even odds the previous belief (stay
//     put) or that belief with one option's level moved by ±1 (drift; the
//     first is on a random option); the counterfactual is then the previous
//     belief;
//   - strong: the unasked finding of largest expected information gain about
//     the options, then the exact posterior as levels (the final one with a
//     unique top) and, as counterfactual, the exact posterior had the reply
//     been "unknown" (the posterior before the query);
//   - constant: findings fn0, fn1, … in order and every belief on the best
//     constant option of the train split (2,000 instances);
//   - locked(q_as, q_bt): the confidently uninformed demonstrator shared by
//     the tasks (tasks.NewLocked, locked.go): with probability q_as the
//     strong finding, else weak's uninformative one; with probability q_bt
//     the strong belief, else the last stated belief held (flat before the
//     first; a unique top on its first top option when final), with itself
//     as counterfactual.
func (t *Task) Scripted(spec tasks.PolicySpec) (tasks.Policy, error) {
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("mediq: %w", err)
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
		return &policy{t: t, spec: spec, name: "constant(option" + string(rune('A'+t.constant)) + ")"}, nil
	}
	return nil, fmt.Errorf("mediq: unknown policy kind %q", spec.Kind)
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
		return nil, fmt.Errorf("mediq policy: episode of another task (%T)", ep)
	}
	if e.Done() {
		return nil, fmt.Errorf("mediq policy: the episode is over")
	}
	t := p.t
	if e.QueryTurn() {
		var f int
		switch {
		case p.spec.Kind == "strong" || (p.spec.Kind == "weak" && rng.Float64() < p.spec.QAS):
			f = strongFinding(e, rng)
		case p.spec.Kind == "constant":
			f = (e.Round()) % t.cfg.Findings
		case p.spec.Kind == "weak":
			f = uninformativeFinding(e, rng)
		default:
			f = rng.IntN(t.cfg.Findings)
		}
		return []tasks.Token{t.fn0 + tasks.Token(f)}, nil
	}
	final := e.FinalTurn()
	var real, cf []int
	switch {
	case p.spec.Kind == "strong" || (p.spec.Kind == "weak" && rng.Float64() < p.spec.QBT):
		real, cf = bayesLevels(e, e.post, final, rng), bayesLevels(e, e.prePost, false, rng)
	case p.spec.Kind == "constant":
		real = t.levels.OneHot(4, t.constant)
	case p.spec.Kind == "random" && e.statedLevels != nil:
		real = e.statedLevels
	case p.spec.Kind == "weak" && e.statedLevels != nil:
		real, cf = append([]int(nil), e.statedLevels...), e.statedLevels // stay put …
		if rng.IntN(2) == 0 {
			real = drift(real, t.cfg.Levels, rng) // … or drift
		}
	default:
		real = t.levels.OneHot(4, rng.IntN(4))
	}
	if cf == nil {
		cf = real
	}
	out := append(t.levels.Encode(real), t.cf)
	return append(out, t.levels.Encode(cf)...), nil
}

// drift moves one random option's level by ±1 within [0, levels), keeping
// some mass somewhere.
func drift(l []int, levels int, rng *rand.Rand) []int {
	o, d := rng.IntN(len(l)), 2*rng.IntN(2)-1
	old := l[o]
	l[o] = min(max(old+d, 0), levels-1)
	for _, x := range l {
		if x > 0 {
			return l
		}
	}
	l[o] = old
	return l
}

// strongFinding is the unasked finding of largest expected information gain
// about the option under the exact posterior (ties broken at random): the
// probability that the patient can answer times the mutual information
// between the option and the finding's value.
func strongFinding(e *episode, rng *rand.Rand) int {
	best, bestIG, ties := -1, -1.0, 0
	for f, asked := range e.asked {
		if asked {
			continue
		}
		ig := (1 - e.t.pUnknown(e.p.options, f)) * tasks.MutualInformation(e.post, e.t.kb.findings[f].values(), e.lik(f))
		switch {
		case ig > bestIG+1e-12:
			best, bestIG, ties = f, ig, 1
		case ig > bestIG-1e-12:
			ties++
			if rng.IntN(ties) == 0 {
				best = f
			}
		}
	}
	if best < 0 {
		return rng.IntN(len(e.asked))
	}
	return best
}

// uninformativeFinding is a random unasked finding that is not pertinent:
// its value has the same distribution under all four options, so it carries
// no information at all; a random finding when none is left.
func uninformativeFinding(e *episode, rng *rand.Rand) int {
	var pool []int
	for f, asked := range e.asked {
		if !asked && !e.t.pertinent(e.p.options, f) {
			pool = append(pool, f)
		}
	}
	if len(pool) == 0 {
		return rng.IntN(len(e.asked))
	}
	return pool[rng.IntN(len(pool))]
}

// bayesLevels is the belief b as levels; a final answer gets a unique top on
// a random member of b's top set.
func bayesLevels(e *episode, b tasks.Belief, final bool, rng *rand.Rand) []int {
	levels := e.t.levels.Quantize(b)
	if !final {
		return levels
	}
	top := tasks.TopSet(b)
	return e.t.levels.WithTop(levels, top[rng.IntN(len(top))])
}

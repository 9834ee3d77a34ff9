package mediq

import (
	"fmt"
	"math"

	"arew/tasks"
	"arew/tasks/internal/diagnosis"
)

// episode is one patient being examined. Turn 2r is the query of round r
// (AS), turn 2r+1 its belief with the counterfactual (BT); the last belief is
// the final answer.
type episode struct {
	t            *Task
	p            *patient
	tasks.Rounds // turn bookkeeping: query and belief turns, steps

	// asked marks the findings already known to the agent: revealed in the
	// prompt or asked before (whatever the reply).
	asked []bool
	// prior is the exact posterior over the options given the prompt's
	// facts (b̄_0); post adds the replies so far; prePost is post before the
	// last query, i.e. the exact belief had its reply been "unknown".
	prior, post, prePost tasks.Belief
	// lastFact: the last query brought a new fact; lastElim: its reply
	// shrank the consistent set.
	lastFact, lastElim bool
	// stated is the agent's last valid belief (flat before the first), and
	// statedLevels its levels (nil before the first).
	stated       tasks.Belief
	statedLevels []int
	psis         []float64
	final        tasks.Belief
}

func newEpisode(t *Task, p *patient) *episode {
	e := &episode{t: t, p: p, Rounds: tasks.NewRounds(t.cfg.Rounds), asked: make([]bool, t.cfg.Findings), stated: tasks.Uniform(4)}
	b := tasks.Uniform(4)
	for _, f := range p.initial {
		e.asked[f] = true
		b = e.update(b, f, p.values[f])
	}
	e.prior, e.post, e.prePost = b, b, b
	return e
}

// lik is P(value v of finding f | option o).
func (e *episode) lik(f int) func(o, v int) float64 {
	return func(o, v int) float64 { return e.t.kb.findings[f].lik[e.p.options[o]][v] }
}

// update is one exact Bayes step on an observed value. The patient's values
// are drawn from the true diagnosis's likelihoods, so the truth's likelihood
// is positive and its mass never vanishes.
func (e *episode) update(b tasks.Belief, f, v int) tasks.Belief {
	nb, err := b.Update(func(o int) float64 { return e.lik(f)(o, v) })
	if err != nil {
		panic("mediq: the true diagnosis gave this value, so it has positive likelihood: " + err.Error())
	}
	return nb
}

// Prompt is BOS, the style token if any, the initial facts as (finding, value) pairs, the diagnoses
// of options A–D, and the header of the first turn.
func (e *episode) Prompt() []tasks.Token {
	t := e.t
	out := make([]tasks.Token, 0, t.promptLen())
	out = tasks.AppendStart(out, t.style)
	for _, f := range e.p.initial {
		out = append(out, t.fn0+tasks.Token(f), t.valueToken(f, e.p.values[f]))
	}
	for _, d := range e.p.options {
		out = append(out, t.dx0+tasks.Token(d))
	}
	return append(out, t.ask)
}

// Reveal names the correct option and its diagnosis (tasks.Revealer).
func (e *episode) Reveal() string {
	return fmt.Sprintf("correct option: %c (%s)", 'A'+e.p.truth, e.t.vocab.Word(e.t.dx0+tasks.Token(e.p.options[e.p.truth])))
}

// Next is the turn the agent takes now.
func (e *episode) Next() tasks.Turn { return e.Rounds.Next(2, 10) }

// Step judges the agent's tokens for the current turn.
func (e *episode) Step(action []tasks.Token) ([]tasks.Token, tasks.Step, error) {
	return e.Play("mediq", action, e.query, e.belief)
}

// query answers an AS turn: exactly one finding token.
func (e *episode) query(action []tasks.Token) ([]tasks.Token, tasks.Step) {
	t := e.t
	s := tasks.Step{Kind: tasks.AS, TruthMass: math.NaN()}
	f := -1
	if len(action) == 1 {
		if i := int(action[0]) - int(t.fn0); i >= 0 && i < t.cfg.Findings {
			f = i
		}
	}
	before := tasks.Plausible(e.post, t.cfg.RuleOut)
	e.prePost = e.post
	reply, splits := t.bad, false
	switch {
	case f < 0:
		s.Malformed = true
		s.Text = "malformed query: " + t.vocab.Decode(action)
	case e.asked[f]:
		// Asked before or revealed in the prompt: the paper's code answers
		// "cannot answer"; here it gets its own token, REP.
		reply, s.Repeat = t.rep, true
		s.Text = fmt.Sprintf("fn%d again", f)
	default:
		e.asked[f] = true
		splits = tasks.Splits(e.post, t.cfg.RuleOut, t.kb.findings[f].values(), e.lik(f))
		if !e.p.known[f] {
			reply = t.unk
			s.Text = fmt.Sprintf("fn%d → unknown", f)
			break
		}
		v := e.p.values[f]
		reply = t.valueToken(f, v)
		e.post = e.update(e.post, f, v)
		s.Text = fmt.Sprintf("fn%d → %s", f, t.vocab.Word(reply))
	}
	e.lastFact = reply != t.bad && reply != t.rep && reply != t.unk
	e.lastElim = tasks.Eliminated(before, tasks.Plausible(e.post, t.cfg.RuleOut))
	switch {
	case t.cfg.Critiques != "spec":
		s.Z = tasks.ConsistentAS(tasks.Count(before), s.Malformed, s.Repeat, splits)
	case e.lastFact:
		s.Z = 1 // the spec: +1 if new facts arrived
	default:
		s.Z = -1 // repeated, unknown or malformed
	}
	header := t.guess
	if e.LastRound() {
		header = t.answer
	}
	return []tasks.Token{reply, header}, s
}

// parseBelief reads "w_A w_B w_C w_D <cf> w_A w_B w_C w_D".
func (t *Task) parseBelief(action []tasks.Token) (real, cf tasks.Belief, err error) {
	if len(action) != 9 || action[4] != t.cf {
		return nil, nil, fmt.Errorf("a belief is 4 levels, <cf>, 4 levels; got %d tokens", len(action))
	}
	if real, err = t.levels.Parse(action[:4], 4); err != nil {
		return nil, nil, err
	}
	if cf, err = t.levels.Parse(action[5:], 4); err != nil {
		return nil, nil, fmt.Errorf("counterfactual: %w", err)
	}
	return real, cf, nil
}

// belief judges a BT turn.
func (e *episode) belief(action []tasks.Token) ([]tasks.Token, tasks.Step) {
	t := e.t
	s := tasks.Step{Kind: tasks.BT, Final: e.FinalTurn()}
	b, cf, err := t.parseBelief(action)
	s.Malformed = err != nil
	switch {
	case s.Malformed:
		s.Z = -1
		s.Text = "malformed belief: " + t.vocab.Decode(action)
	case t.cfg.Critiques == "consistent":
		s.Z = tasks.ConsistentBT(b, false, tasks.Plausible(e.post, t.cfg.RuleOut), e.lastElim)
	case t.cfg.Critiques == "mass":
		s.Z = tasks.MassBT(b, e.stated, false, tasks.Plausible(e.post, t.cfg.RuleOut), e.lastElim)
	default:
		s.Z = counterfactualBT(e.lastFact, e.stated, b, cf, e.p.truth)
	}
	if !s.Malformed {
		s.Text = "belief " + t.vocab.Decode(action)
		e.stated = b
		e.statedLevels = make([]int, 4)
		for i, tok := range action[:4] {
			e.statedLevels[i] = int(tok - t.levels.First)
		}
	}
	s.TruthMass = e.stated[e.p.truth]
	e.psis = append(e.psis, s.TruthMass)
	if s.Final {
		e.final = b
		return nil, s
	}
	if s.Malformed {
		return []tasks.Token{t.bad, t.ask}, s
	}
	return []tasks.Token{t.ask}, s
}

// counterfactualBT is the spec's MediQ BT critique, as the paper's code
// computes it, on normalised beliefs. prev is the last valid stated belief
// (flat before the first). After a reply with no new fact ("unknown", a
// repeat, a malformed query): +1 if the true option's margin b[truth] −
// max_{j≠truth} b[j] is unchanged (within 1e-9), else −1. After a new fact:
// +1 if the real belief moved at least as far from prev as the
// counterfactual one, ‖b − prev‖₂ ≥ ‖cf − prev‖₂, else −1. "As far" is a
// Euclidean distance, not a direction: the rule credits a belief that reacts
// to a fact more than it would to silence.
func counterfactualBT(newFact bool, prev, b, cf tasks.Belief, truth int) int8 {
	if !newFact {
		if math.Abs(margin(b, truth)-margin(prev, truth)) <= 1e-9 {
			return 1
		}
		return -1
	}
	if dist(b, prev) >= dist(cf, prev)-1e-12 {
		return 1
	}
	return -1
}

func margin(b tasks.Belief, truth int) float64 {
	other := math.Inf(-1)
	for j, x := range b {
		if j != truth {
			other = math.Max(other, x)
		}
	}
	return b[truth] - other
}

func dist(a, b tasks.Belief) float64 {
	s := 0.0
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return math.Sqrt(s)
}

// Measures summarises the episode (see tasks.Measures). I_AS starts from the
// exact belief after the prompt's facts; the BT measures from the flat
// belief, the agent's implicit prior.
func (e *episode) Measures() tasks.Measures {
	truth := e.p.truth
	return diagnosis.Measures(e.Steps(), 4, e.psis, e.post[truth]-e.prior[truth], e.final, truth)
}

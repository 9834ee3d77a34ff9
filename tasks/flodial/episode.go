package flodial

import (
	"fmt"
	"math"

	"arew/tasks"
)

// flat is the ratio that defines the consistent set from the posterior. The
// posterior is flat on C, so any ratio in (0, 1] gives C; 0.5 leaves room for
// rounding.
const flat = 0.5

// episode is one FloDial case being played. Turn 2r is the query of round r
// (AS), turn 2r+1 its belief (BT); the last belief is the final answer.
type episode struct {
	t            *Task
	inst         *instance
	tasks.Rounds // turn bookkeeping: query and belief turns, steps

	asked []bool
	// post is the exact Bayes posterior over the faults given the agent's
	// replies so far (flat on the consistent set C).
	post tasks.Belief
	// lastReply and lastElim describe the query just answered: its reply
	// code and whether it shrank C.
	lastReply int
	lastElim  bool
	// stated is the agent's last valid stated belief (flat before the first).
	stated       tasks.Belief
	statedLevels []int     // its levels; nil before the first valid belief
	psis         []float64 // Ψ of the stated belief after each BT turn
	final        tasks.Belief
}

func newEpisode(t *Task, inst *instance) *episode {
	return &episode{t: t, inst: inst, Rounds: tasks.NewRounds(t.cfg.Rounds), asked: make([]bool, t.cfg.Questions),
		post: tasks.Uniform(t.cfg.Faults), stated: tasks.Uniform(t.cfg.Faults)}
}

// Prompt is BOS, the style token if any, then for each question its token
// followed by its K cells (fault 0 first), then the header of the first turn.
func (e *episode) Prompt() []tasks.Token {
	t := e.t
	out := make([]tasks.Token, 0, t.promptLen())
	out = append(out, tasks.BOS)
	if t.cfg.Style != "" {
		out = append(out, t.style)
	}
	for q, col := range e.inst.cells {
		out = append(out, t.q0+tasks.Token(q))
		for _, a := range col {
			out = append(out, t.reply[a])
		}
	}
	return append(out, t.ask)
}

// Next is the turn the agent takes now.
func (e *episode) Next() tasks.Turn { return e.Rounds.Next(2, e.t.cfg.Faults+1) }

// Step judges the agent's tokens for the current turn.
func (e *episode) Step(action []tasks.Token) ([]tasks.Token, tasks.Step, error) {
	return e.Play("flodial", action, e.query, e.belief)
}

// query answers an AS turn: exactly one question token.
func (e *episode) query(action []tasks.Token) ([]tasks.Token, tasks.Step) {
	t := e.t
	s := tasks.Step{Kind: tasks.AS, TruthMass: math.NaN()}
	q := -1
	if len(action) == 1 {
		if i := int(action[0]) - int(t.q0); i >= 0 && i < t.cfg.Questions {
			q = i
		}
	}
	before := tasks.Plausible(e.post, flat)
	reply, splits := bad, false
	switch {
	case q < 0:
		s.Malformed = true
		s.Text = "malformed query: " + t.vocab.Decode(action)
	case e.asked[q]:
		reply, s.Repeat = rep, true
		s.Text = fmt.Sprintf("q%d again", q)
	default:
		e.asked[q] = true
		reply = e.inst.cells[q][e.inst.truth]
		splits = tasks.Splits(e.post, flat, 3, e.inst.lik(q))
		post, err := e.post.Update(func(f int) float64 { return e.inst.lik(q)(f, reply) })
		if err != nil {
			panic("flodial: the true fault always agrees with its own reply: " + err.Error())
		}
		e.post = post
		s.Text = fmt.Sprintf("q%d → %s", q, replyWords[reply])
	}
	e.lastReply = reply
	e.lastElim = tasks.Eliminated(before, tasks.Plausible(e.post, flat))
	if t.cfg.Critiques != "spec" {
		s.Z = tasks.ConsistentAS(tasks.Count(before), s.Malformed, s.Repeat, splits)
	} else {
		s.Z = specAS(reply)
	}
	header := t.guess
	if e.LastRound() {
		header = t.answer
	}
	obs := make([]tasks.Token, 0, t.replyLen())
	obs = append(obs, t.reply[reply])
	if t.cfg.Echo {
		for f := range t.cfg.Faults {
			cell := t.reply[bad]
			if q >= 0 {
				cell = t.reply[e.inst.cells[q][f]]
			}
			obs = append(obs, cell)
		}
	}
	return append(obs, header), s
}

// specAS is the paper's FloDial AS critique: +1 after "Yes", 0 after "No",
// −1 after "Unknown", a repeat or a malformed query.
func specAS(reply int) int8 {
	switch reply {
	case yes:
		return 1
	case no:
		return 0
	}
	return -1
}

// belief judges a BT turn: exactly K level tokens.
func (e *episode) belief(action []tasks.Token) ([]tasks.Token, tasks.Step) {
	t := e.t
	s := tasks.Step{Kind: tasks.BT, Final: e.FinalTurn()}
	b, err := t.levels.Parse(action, t.cfg.Faults)
	if err != nil {
		s.Malformed = true
		s.Text = "malformed belief: " + t.vocab.Decode(action)
	} else {
		s.Text = "belief " + t.vocab.Decode(action)
	}
	if !s.Malformed {
		e.statedLevels = make([]int, len(action))
		for i, tok := range action {
			e.statedLevels[i] = int(tok - t.levels.First)
		}
	}
	switch {
	case s.Malformed:
		s.Z = -1
	case t.cfg.Critiques == "consistent":
		s.Z = tasks.ConsistentBT(b, false, tasks.Plausible(e.post, flat), e.lastElim)
	case t.cfg.Critiques == "per-fault":
		c := tasks.Plausible(e.post, flat)
		s.Z = tasks.ConsistentBT(b, false, c, e.lastElim)
		s.TokenZ = tasks.PerHypothesisBT(e.statedLevels, c)
	default:
		s.Z = specBT(e.lastReply, e.stated, b, e.inst.truth)
	}
	if !s.Malformed {
		e.stated = b
	}
	s.TruthMass = e.stated[e.inst.truth]
	e.psis = append(e.psis, s.TruthMass)
	if s.Final {
		e.final = b
		return nil, s
	}
	if s.Malformed {
		return []tasks.Token{t.reply[bad], t.ask}, s
	}
	return []tasks.Token{t.ask}, s
}

// specBT is the paper's FloDial BT critique on normalised beliefs: after a
// YES or NO reply, +1 if the weight on the true fault rose, else −1; after
// any reply that carries no YES/NO (UNK, a repeat, a malformed query), +1 if
// the belief is unchanged, else −1. prev is the last valid stated belief.
func specBT(reply int, prev, b tasks.Belief, truth int) int8 {
	if reply == yes || reply == no {
		if b[truth] > prev[truth]+1e-12 {
			return 1
		}
		return -1
	}
	for i := range b {
		if math.Abs(b[i]-prev[i]) > 1e-9 {
			return -1
		}
	}
	return 1
}

// Measures summarises the episode (see tasks.Measures).
func (e *episode) Measures() tasks.Measures {
	k := float64(e.t.cfg.Faults)
	m := tasks.Measures{Turns: len(e.Steps()), ASProxy: tasks.ASProxy(e.Steps())}
	for _, s := range e.Steps() {
		if s.Malformed {
			m.Malformed++
		}
		if s.Repeat {
			m.Repeats++
		}
	}
	m.BTProxy, m.CBT = tasks.BeliefGains(1/k, e.psis)
	m.IAS = e.post[e.inst.truth] - 1/k
	if e.final != nil {
		m.Evidence = e.final[e.inst.truth]
		if top, unique := e.final.Argmax(); unique && top == e.inst.truth {
			m.Success, m.Reward = true, 1
		}
	}
	return m
}

package pe

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"arew/tasks"
)

// Episode is one PE instance being played. Turn 2r is query round r (AS),
// turn 2r+1 guess round r (BT); the last guess is the final answer.
type Episode struct {
	t            *Task
	inst         instance
	hyp          *hypotheses
	tasks.Rounds // turn bookkeeping: query and guess turns, steps

	asked    map[int]bool // canonical indices of the queries asked
	evidence []evidence   // valid, new queries and their replies
	// consistent is the exact Bayes posterior's support over H given the
	// evidence (the posterior is uniform on it).
	consistent []int32
	lastAS     asRecord
	diffs      *queryDiffs // built on first use by the strong policy

	belief    []int   // the last valid stated guess (initially flat)
	psiBelief float64 // Ψ of that guess: cos(belief, w*)
	psiStart  float64
	psiPrior  float64   // Ψ of the exact prior: cos(prior mean, w*)
	psis      []float64 // Ψ of the stated guess after each guess round
	final     []int     // the final answer when valid
}

// evidence is a (canonical query, reply in canonical orientation) pair.
type evidence struct {
	q int
	r Reply
}

// asRecord is what the next BT critique needs to know of the query round.
type asRecord struct {
	z          int8
	dominated  bool // a valid new query whose pair is dominated on its focus set
	eliminated bool // the reply removed hypotheses from the consistent set
	valid      bool // a valid, new query (its reply is evidence)
}

func newEpisode(t *Task, inst instance) *Episode {
	return newEpisodeOn(t, inst, t.parts)
}

// newEpisodeOn plays inst with the hypothesis set parts, of which w* must be
// member inst.truthIdx (tests build hand-made sets).
func newEpisodeOn(t *Task, inst instance, parts *particles) *Episode {
	hyp := &hypotheses{p: parts, truth: parts.at(inst.truthIdx)}
	e := &Episode{
		t:          t,
		inst:       inst,
		hyp:        hyp,
		Rounds:     tasks.NewRounds(t.cfg.Queries),
		asked:      map[int]bool{},
		consistent: hyp.all(),
		belief:     flatGuess(t.cfg),
	}
	e.psiBelief = cosine(toFloat(e.belief), inst.truth)
	e.psiStart = e.psiBelief
	e.psiPrior = hyp.psi(e.consistent)
	return e
}

// flatGuess is the initial belief: every weight equal (the released code
// starts from 0.5 on every dimension), at the middle level.
func flatGuess(c Config) []int {
	g := make([]int, c.Dims)
	for i := range g {
		g[i] = max(1, (c.GuessLevels-1)/2)
	}
	return g
}

// Prompt is BOS, the style token if any, the movie table (one row per
// movie: its name, then its D scores as number tokens), under Pairs the
// non-dominated pairs (each "mA mB", A < B, in increasing order), and the
// header "ask".
func (e *Episode) Prompt() []tasks.Token {
	tok := e.t.tok
	out := make([]tasks.Token, 0, e.t.promptLen())
	out = tasks.AppendStart(out, e.t.style)
	for m, row := range e.inst.table {
		out = append(out, tok.movie0+tasks.Token(m))
		for _, x := range row {
			out = append(out, tok.num0+tasks.Token(x))
		}
	}
	if e.t.cfg.Pairs {
		for i := 0; i < e.t.qs.size(); i++ { // PE-F: one focus set, the pairs in order
			if q := e.t.qs.query(i); !dominated(q, e.inst.table) {
				out = append(out, tok.movie0+tasks.Token(q.A), tok.movie0+tasks.Token(q.B))
			}
		}
	}
	return append(out, tok.ask)
}

// Next describes the current turn.
func (e *Episode) Next() tasks.Turn { return e.Rounds.Next(e.t.queryLen()+1, e.t.guessLen()+1) }

// Table returns the movie table (a copy), for policies and tests.
func (e *Episode) Table() [][]int {
	out := make([][]int, len(e.inst.table))
	for i, r := range e.inst.table {
		out[i] = append([]int(nil), r...)
	}
	return out
}

// Truth returns w* (a copy).
func (e *Episode) Truth() []float64 { return append([]float64(nil), e.inst.truth...) }

// ConsistentSize is |C|, the number of hypotheses still consistent with the
// evidence.
func (e *Episode) ConsistentSize() int { return len(e.consistent) }

// Belief is the last valid stated guess (a copy).
func (e *Episode) Belief() []int { return append([]int(nil), e.belief...) }

// Step judges the agent's tokens for the current turn (EOT excluded).
func (e *Episode) Step(action []tasks.Token) ([]tasks.Token, tasks.Step, error) {
	return e.Play("pe", action, e.stepQuery, e.stepGuess)
}

// header is the token that announces the turn after the current one.
func (e *Episode) header() tasks.Token {
	switch {
	case !e.QueryTurn():
		return e.t.tok.ask
	case e.LastRound():
		return e.t.tok.answer
	}
	return e.t.tok.guess
}

func (e *Episode) stepQuery(action []tasks.Token) ([]tasks.Token, tasks.Step) {
	st := tasks.Step{Kind: tasks.AS, TruthMass: math.NaN()}
	q, err := e.t.parseQuery(action)
	if err != nil {
		st.Malformed, st.Z, st.Text = true, -1, "invalid query: "+err.Error()
		e.lastAS = asRecord{z: -1}
		return []tasks.Token{e.t.tok.invalid, e.header()}, st
	}
	idx, flipped := e.t.qs.index(q)
	st.Text = e.queryText(q)
	if e.asked[idx] {
		st.Repeat, st.Z = true, -1
		st.Text += " (repeat)"
		e.lastAS = asRecord{z: -1}
		if e.t.cfg.RepeatEcho { // the first asking's reply, restated: no new evidence
			r := reply(e.inst.truth, q, e.inst.table, e.t.cfg.EqualTol)
			return append(append([]tasks.Token{e.t.tok.repeat}, e.echo(q)...), e.t.tok.replyOf[r], e.header()), st
		}
		return []tasks.Token{e.t.tok.repeat, e.header()}, st
	}
	e.asked[idx] = true
	r := reply(e.inst.truth, q, e.inst.table, e.t.cfg.EqualTol)
	canon := e.t.qs.query(idx)
	cr := r
	if flipped {
		cr = -r
	}
	before := e.consistent
	e.consistent = e.hyp.filter(before, canon, cr, e.inst.table, e.t.cfg.EqualTol)
	e.evidence = append(e.evidence, evidence{q: idx, r: cr})
	rec := asRecord{
		valid:      true,
		dominated:  dominated(q, e.inst.table),
		eliminated: len(e.consistent) < len(before),
	}
	rec.z = e.critiqueQuery(rec, len(before))
	e.lastAS = rec
	st.Z = rec.z
	st.Text += " → " + r.String()
	return append(e.echo(q), e.t.tok.replyOf[r], e.header()), st
}

// echo is the echo layout's restatement of a valid new query: the score
// differences x_A − x_B on its focus set (attributes in increasing order),
// one token each; empty without Echo.
func (e *Episode) echo(q Query) []tasks.Token {
	out := make([]tasks.Token, 0, e.t.echoLen()+2)
	if !e.t.cfg.Echo {
		return out
	}
	a, b := e.inst.table[q.A], e.inst.table[q.B]
	for _, k := range q.Focus { // all D attributes for PE-F
		out = append(out, e.t.tok.diff0+tasks.Token(a[k]-b[k]))
	}
	return out
}

func (e *Episode) stepGuess(action []tasks.Token) ([]tasks.Token, tasks.Step) {
	final := e.FinalTurn()
	// An invalid guess leaves the stated belief, and its Ψ, where it was.
	st := tasks.Step{Kind: tasks.BT, Final: final}
	g, err := e.t.parseGuess(action)
	var obs []tasks.Token
	if err != nil {
		st.Malformed, st.Z, st.Text = true, -1, "invalid guess: "+err.Error()
		obs = append(obs, e.t.tok.invalid)
	} else {
		st.Z = e.critiqueGuess(g)
		st.Text = fmt.Sprintf("guess %v", g)
		e.belief = g
		e.psiBelief = cosine(toFloat(g), e.inst.truth)
		if final {
			e.final = g
		}
	}
	st.TruthMass = e.psiBelief
	e.psis = append(e.psis, e.psiBelief)
	if !final {
		obs = append(obs, e.header())
	}
	return obs, st
}

func (e *Episode) queryText(q Query) string {
	if e.t.cfg.Focus == 0 {
		return fmt.Sprintf("m%d vs m%d", q.A, q.B)
	}
	return fmt.Sprintf("%v m%d vs m%d", q.Focus, q.A, q.B)
}

// Measures summarises the episode (docs/arew.md §3–4, definitions in doc.go).
func (e *Episode) Measures() tasks.Measures {
	m := tasks.Measures{Turns: len(e.Steps())}
	for _, s := range e.Steps() {
		if s.Malformed {
			m.Malformed++
		}
		if s.Repeat {
			m.Repeats++
		}
	}
	m.ASProxy = tasks.ASProxy(e.Steps())
	m.BTProxy, m.CBT = tasks.BeliefGains(e.psiStart, e.psis)
	m.IAS = e.hyp.psi(e.consistent) - e.psiPrior
	if e.final != nil {
		c := cosine(toFloat(e.final), e.inst.truth)
		m.Evidence = c
		m.Success = c > e.t.cfg.Threshold
		switch e.t.cfg.Reward {
		case "cosine":
			m.Reward = c
		default:
			if m.Success {
				m.Reward = 1
			}
		}
	}
	return m
}

// Reveal states the user's true preference weights (tasks.Revealer), the
// hidden vector the agent must estimate, never shown to it.
func (e *Episode) Reveal() string {
	parts := make([]string, len(e.inst.truth))
	for i, w := range e.inst.truth {
		parts[i] = strconv.FormatFloat(w, 'f', 3, 64)
	}
	return "true weights: (" + strings.Join(parts, ", ") + ")"
}

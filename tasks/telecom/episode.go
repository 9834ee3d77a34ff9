package telecom

import (
	"errors"
	"math"
	"slices"

	"arew/tasks"
)

// Episode is one customer call. It implements tasks.Episode and exposes
// Stats, the telecom figures the generic Measures cannot hold.
type Episode struct {
	t     *Task
	truth config
	line  int   // the customer's line id
	w     world // the true world
	exp   world // the expected final world
	hyp   hypotheses
	psi0  float64 // Ψ(b̄_0): posterior mass on the truth given the prompt

	expected  map[int]bool // keys of the expected actions
	matched   map[int]bool
	seenReads map[string]bool // (action key, result) pairs already read
	lastOcc   map[int]int     // action key → turn of its last occurrence
	lastWrite int             // turn of the last accepted write (−1: none)
	userStop  bool
	// minSupport is the least support of a consequential decision so far.
	minSupport float64

	last  facts // the facts of the last step, for tests
	turn  int
	done  bool
	steps []tasks.Step
	stats Stats
}

func newEpisode(t *Task, c config, line int) *Episode {
	e := &Episode{
		t: t, truth: c, line: line, w: newWorld(c), exp: expectedWorld(c),
		expected: map[int]bool{}, matched: map[int]bool{}, seenReads: map[string]bool{},
		lastOcc: map[int]int{}, lastWrite: -1, minSupport: 1,
	}
	e.hyp = newHypotheses(&t.prior, e.w.symptom())
	e.psi0 = e.hyp.posterior()[t.prior.index[c]]
	for _, a := range expectedActions(c, t.setting, line) {
		e.expected[a.key()] = true
	}
	return e
}

// expectedActions is the evaluator's list for a configuration: the repairs,
// in the order the strong policy does them, then the closing action. In dual
// the device repairs are the user's (say …).
func expectedActions(c config, s setting, line int) []action {
	w, exp := newWorld(c), expectedWorld(c)
	var out []action
	for _, o := range w.repairsNeeded(&exp) {
		out = append(out, opAction(o, s, line))
	}
	if c.has(fSIM) { // reseat follows newsim: not needed yet in the initial world
		out = append(out, opAction(opReseat, s, line))
	}
	closing := opDone
	if c.has(fBroken) {
		closing = opTransfer
	}
	return append(out, opAction(closing, s, line))
}

// opAction is the well-formed action that performs o in setting s.
func opAction(o op, s setting, line int) action {
	switch {
	case o.account():
		return action{op: o, line: line}
	case o.device() && s == dual:
		return action{op: o, line: -1, say: true}
	}
	return action{op: o, line: -1}
}

// header is the token announcing turn i.
func (e *Episode) header(i int) tasks.Token {
	if i == e.t.cfg.MaxTurns-1 {
		return tokLast
	}
	return tokAct
}

// Prompt: <bos> [style] setting complaint line header, e.g. "<bos> dual
// no-data L2 act".
func (e *Episode) Prompt() []tasks.Token {
	w0 := newWorld(e.truth)
	return append(tasks.AppendStart(make([]tasks.Token, 0, promptLen+1), e.t.style),
		tokSetting[e.t.setting], tokSymptom[w0.symptom()], lineToken(e.line), e.header(0))
}

// Next: every turn is AS; the last one allowed is Final.
func (e *Episode) Next() tasks.Turn {
	return tasks.Turn{Kind: tasks.AS, Final: e.turn == e.t.cfg.MaxTurns-1, MaxTokens: turnTokens}
}

func (e *Episode) Done() bool          { return e.done }
func (e *Episode) Steps() []tasks.Step { return slices.Clone(e.steps) }
func (e *Episode) Stats() Stats        { return e.stats }
func (e *Episode) Setting() string     { return e.t.setting.String() }

// Step plays one agent turn (tokens without EOT).
func (e *Episode) Step(toks []tasks.Token) ([]tasks.Token, tasks.Step, error) {
	if e.done {
		return nil, tasks.Step{}, errors.New("telecom: step after the episode ended")
	}
	st := tasks.Step{Turn: e.turn, Kind: tasks.AS, Final: e.turn == e.t.cfg.MaxTurns-1, TruthMass: math.NaN()}
	e.stats.Turns++
	e.stats.AgentTokens += min(len(toks)+1, turnTokens)
	var reply []tasks.Token
	f := facts{late: e.turn+1 >= e.t.cfg.LateTurn}
	a, perr := parseAction(toks, e.t.setting)
	if perr != nil {
		f.malformed = true
		reply = []tasks.Token{tokInvalid}
		st.Malformed = true
		e.stats.Malformed++
		st.Text = e.t.vocab.Decode(toks) + " → invalid (" + perr.Error() + ")"
	} else {
		reply = e.apply(a, &f)
		st.Repeat = f.repeat
		st.Text = a.String() + " → " + vocabulary.Decode(reply)
	}
	if e.t.cfg.Critiques == "consistent" {
		st.Z = consistentZ(f)
	} else if e.t.setting == dual {
		st.Z = specDual(f)
	} else {
		st.Z = specSolo(f)
	}
	e.steps = append(e.steps, st)
	e.last = f
	e.turn++
	if e.turn >= e.t.cfg.MaxTurns {
		e.done = true
	}
	obs := slices.Clone(reply)
	if !e.done {
		obs = append(obs, e.header(e.turn))
	}
	return obs, st, nil
}

// apply performs a parsed action on the true world and on every hypothesis,
// fills in the critique facts and the stats, and returns the reply.
func (e *Episode) apply(a action, f *facts) []tasks.Token {
	s, key := e.t.setting, a.key()
	last, seen := e.lastOcc[key]
	f.repeat = seen && last >= e.lastWrite
	f.read, f.write, f.close, f.user = a.op.read(), a.op.write(), a.op.close(), a.userAct()
	if f.read {
		f.splits = e.hyp.splits(a, s, e.line, f.repeat)
	}
	sup := 1.0
	if f.write || f.close {
		sup = e.support(a.op)
	}
	out := respond(&e.w, a, s, e.line, f.repeat)
	e.hyp.observe(a, s, e.line, f.repeat, out.reply)
	f.toolErr, f.changed = out.toolErr, out.changed
	if f.close || f.write && (f.toolErr || f.changed) {
		e.minSupport = min(e.minSupport, sup)
	}

	e.lastOcc[key] = e.turn
	if f.write && !f.toolErr {
		e.lastWrite = e.turn
	}
	if f.read && !f.repeat && !f.toolErr {
		sig := string(append(tokenBytes(out.reply), byte(key), byte(key>>8)))
		f.newInfo = !e.seenReads[sig]
		e.seenReads[sig] = true
	}
	if e.expected[key] && !e.matched[key] && f.changed && (!f.close || e.w == e.exp) {
		f.matched = true
		e.matched[key] = true
	}
	f.prematureTransfer = a.op == opTransfer && e.w != e.exp
	if f.user && !e.userStop && slices.Equal(out.reply, []tasks.Token{tokSymptom[works]}) {
		f.userStop, e.userStop = true, true
	}

	switch {
	case a.toolCall():
		e.stats.ToolTurns++
	case a.say:
		e.stats.MessageTurns++
	default:
		e.stats.CloseTurns++
	}
	if f.toolErr {
		e.stats.ToolErrors++
	}
	if f.write && !f.toolErr && !f.changed {
		e.stats.NoEffectWrites++
	}
	if f.write && f.changed && !f.matched {
		e.stats.UnexpectedWrites++
	}
	if f.repeat {
		e.stats.Repeats++
	}
	if f.close {
		e.done = true
	}
	return out.reply
}

// Measures summarises the episode (valid once Done).
//
//	Reward, Success  1 iff the final world equals the expected one
//	ASProxy          fraction of steps with z = +1 (every step is AS)
//	IAS              Ψ(b̄_H) − Ψ(b̄_0): exact-Bayes mass on the true configuration
//	                 after the agent's actions minus that after the prompt
//	Evidence         on success, the least posterior support among the
//	                 agent's consequential decisions (see support); 0 on
//	                 failure. 1 when exact Bayes over what the agent had seen
//	                 backed every repair and the close when it made them; low
//	                 for a lucky guess, even one the replies later confirmed.
//	BTProxy, CBT     NaN: telecom has no belief turns
func (e *Episode) Measures() tasks.Measures {
	m := tasks.Measures{
		BTProxy: math.NaN(), CBT: math.NaN(),
		Turns: len(e.steps), Malformed: e.stats.Malformed, Repeats: e.stats.Repeats,
		Extra: e.stats.extra(),
	}
	if e.w == e.exp {
		m.Reward, m.Success = 1, true
	}
	m.ASProxy = tasks.ASProxy(e.steps) // every telecom step is AS
	post := e.hyp.posterior()
	m.IAS = post[e.t.prior.index[e.truth]] - e.psi0
	if m.Success {
		m.Evidence = e.minSupport
	}
	return m
}

// Posterior is the exact Bayes posterior over the fault configurations
// (Configs order) given everything the agent has seen.
func (e *Episode) Posterior() []float64 { return e.hyp.posterior() }

// TruthMass is Ψ now: the posterior mass on the true configuration.
func (e *Episode) TruthMass() float64 { return e.hyp.posterior()[e.t.prior.index[e.truth]] }

// support is the posterior probability, given what the agent has seen before
// this step, that doing o now is right: for a write, that o is a repair the
// world still needs (in the order the expected-action list does them, any
// of them); for a close, that nothing is left to repair and o is the
// expected close. The consequential decisions whose support enters Evidence
// are the closing action and every write attempt that changed the world or
// was refused; writes that were accepted and changed nothing (restart,
// reseat with no new SIM) cannot matter and do not count.
func (e *Episode) support(o op) float64 {
	h, p := &e.hyp, &e.t.prior
	return h.massWhere(func(i int) bool {
		needs := h.worlds[i].repairsNeeded(&p.expected[i])
		if !o.close() {
			return containsOp(needs, o)
		}
		return len(needs) == 0 && (o == opTransfer) == p.configs[i].has(fBroken)
	})
}

// Reveal names the line's fault configuration (tasks.Revealer): the faults
// the agent must find and fix, never shown to it.
func (e *Episode) Reveal() string { return "faults: " + e.truth.String() }

package flodial

import (
	"fmt"
	"math"
	"math/rand/v2"

	"arew/tasks"
	"arew/tasks/internal/diagnosis"
)

// Reply codes: the three table answers, then the two replies that carry no
// evidence.
const (
	yes = iota
	no
	unk
	rep // the question was already asked
	bad // the query did not parse
)

var replyWords = []string{"YES", "NO", "UNK", "REP", "BAD"}

// Task is a configured FloDial setting; it implements tasks.Task.
type Task struct {
	name   string
	cfg    Config
	vocab  *tasks.Vocab
	levels tasks.LevelFormat
	reply  [5]tasks.Token
	ask    tasks.Token
	guess  tasks.Token
	answer tasks.Token
	q0     tasks.Token // id of question q0; q_i is q0+i
	style  tasks.Token // the prompt's style token; 0 without a style
	// dialogue is what FloDial shares with MediQ: the scripted policies,
	// the best constant answer and the measures.
	dialogue *diagnosis.Dialogue
}

// New makes a FloDial task from a validated config.
func New(name string, cfg Config) (*Task, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("flodial config: %w", err)
	}
	v := tasks.NewVocab(tasks.StyleGroups(cfg.Style,
		[]string{"<ask>", "<guess>", "<answer>"},
		replyWords,
		tasks.Prefixed("q", cfg.Questions),
		tasks.Numbers(cfg.Levels),
	)...)
	t := &Task{name: name, cfg: cfg, vocab: v,
		levels: tasks.LevelFormat{First: v.ID("0"), Levels: cfg.Levels},
		ask:    v.ID("<ask>"), guess: v.ID("<guess>"), answer: v.ID("<answer>"), q0: v.ID("q0"),
		style: tasks.StyleToken(v, cfg.Style)}
	for i, w := range replyWords {
		t.reply[i] = v.ID(w)
	}
	t.dialogue = t.newDialogue()
	return t, nil
}

// Name is the setting's name.
func (t *Task) Name() string { return t.name }

// Vocab is the task's token set.
func (t *Task) Vocab() *tasks.Vocab { return t.vocab }

// Config is the task's configuration.
func (t *Task) Config() Config { return t.cfg }

// promptLen is BOS, the style token if any, Q columns of (question token +
// K cells), and the header.
func (t *Task) promptLen() int {
	return 1 + tasks.StyleLen(t.cfg.Style) + t.cfg.Questions*(1+t.cfg.Faults) + 1
}

// replyLen is the observation after a query: the answer, the echoed
// column if Echo, and the next turn's header.
func (t *Task) replyLen() int {
	if t.cfg.Echo {
		return 2 + t.cfg.Faults
	}
	return 2
}

// MaxTokens bounds an episode whose turns respect Turn.MaxTokens: the
// prompt; per round a query (2 tokens with EOT) and its reply, then a
// belief (K + 1) and, unless it is the last, an optional BAD + header.
func (t *Task) MaxTokens() int {
	k, r := t.cfg.Faults, t.cfg.Rounds
	return t.promptLen() + r*(2+t.replyLen()) + r*(k+1) + (r-1)*2
}

// NewEpisode makes instance index of split.
func (t *Task) NewEpisode(split tasks.Split, index int) (tasks.Episode, error) {
	inst, err := t.instance(split, index)
	if err != nil {
		return nil, err
	}
	return newEpisode(t, inst), nil
}

// Recycle makes instance index of split in old's memory (see
// tasks.Recycler): the same instance NewEpisode draws, from generators
// reseeded in place, and the same play, with no Text. An old episode that
// is not one of this task's gets new memory.
func (t *Task) Recycle(old tasks.Episode, split tasks.Split, index int) (tasks.Episode, error) {
	e, ok := old.(*episode)
	if !ok || e == nil || e.t != t {
		e = &episode{t: t}
	}
	if e.inst == nil {
		e.inst = &instance{}
	}
	if err := t.draw(e.inst, &e.mem.gen, split, index); err != nil {
		return nil, err
	}
	e.restart(false)
	return e, nil
}

// Column kinds of the answer table.
const (
	useless  = iota // NO for every fault
	narrow          // YES for one fault
	balanced        // YES for ⌊K/2⌋ faults
)

// Instance streams: each component draws from its own generator.
const (
	streamTable = 1
	streamTruth = 2
)

// instance is one troubleshooting case: the flowchart as its fault × question
// answer table, and the hidden true fault.
type instance struct {
	// cells[q][f] is the answer (yes, no or unk) to question q when fault f
	// is the cause.
	cells [][]int
	kinds []int
	truth int
}

func (t *Task) instance(split tasks.Split, index int) (*instance, error) {
	inst := &instance{}
	if err := t.draw(inst, &instanceGen{}, split, index); err != nil {
		return nil, err
	}
	return inst, nil
}

// instanceGen is the memory an instance is drawn with: its two generators
// (tasks.InstanceRNG's, reseeded in place by tasks.SeedInstance) and the
// permutation buffer. A recycled episode keeps one (Task.Recycle).
type instanceGen struct {
	tablePCG, truthPCG rand.PCG
	table, truth       *rand.Rand
	perm               []int
}

// draw makes instance index of split in inst's memory, with g's.
func (t *Task) draw(inst *instance, g *instanceGen, split tasks.Split, index int) error {
	if err := tasks.SeedInstance(&g.tablePCG, t.cfg.Seed, split, index, streamTable); err != nil {
		return fmt.Errorf("flodial instance: %w", err)
	}
	if err := tasks.SeedInstance(&g.truthPCG, t.cfg.Seed, split, index, streamTruth); err != nil {
		return fmt.Errorf("flodial instance: %w", err)
	}
	if g.table == nil {
		g.table, g.truth = rand.New(&g.tablePCG), rand.New(&g.truthPCG)
	}
	g.perm = tasks.Resize(g.perm, t.cfg.Faults)
	t.generate(inst, g.table, g.truth, g.perm)
	return nil
}

// generate draws an instance into inst's memory from its two generators:
// the table from tr, the truth from hr. Each informative column draws a
// permutation of the faults in perm's memory (len K): permInto, which
// draws what tr.Perm(K) would.
func (t *Task) generate(inst *instance, tr, hr *rand.Rand, perm []int) {
	k, c := t.cfg.Faults, t.cfg
	inst.cells, inst.kinds = tasks.Resize(inst.cells, c.Questions), tasks.Resize(inst.kinds, c.Questions)
	inst.truth = hr.IntN(k)
	for q := range inst.cells {
		col := tasks.Resize(inst.cells[q], k)
		u := tr.Float64()
		switch {
		case u < c.PUseless:
			inst.kinds[q] = useless
			for f := range col {
				col[f] = no
			}
		default:
			nYes := k / 2
			inst.kinds[q] = balanced
			if u < c.PUseless+c.PNarrow {
				inst.kinds[q], nYes = narrow, 1
			}
			permInto(tr, perm)
			for i, f := range perm {
				col[f] = no
				if i < nYes {
					col[f] = yes
				}
			}
			for f := range col {
				if tr.Float64() < c.PUnknown {
					col[f] = unk
				}
			}
		}
		inst.cells[q] = col
	}
}

// permInto writes into p the permutation r.Perm(len(p)) would return,
// drawing the same numbers: the identity, shuffled by r.Shuffle with the
// same swaps (TestPermIntoMatchesPerm).
func permInto(r *rand.Rand, p []int) {
	for i := range p {
		p[i] = i
	}
	r.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
}

// lik is the likelihood of reply v to question q under fault f: replies are
// the table's cells, so 1 if they match and 0 otherwise.
func (inst *instance) lik(q int) func(f, v int) float64 {
	return func(f, v int) float64 {
		if inst.cells[q][f] == v {
			return 1
		}
		return 0
	}
}

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

	text bool // render each step's Text (not in a recycled episode)
	mem  episodeMemory
}

// episodeMemory is what an episode computes in, kept from turn to turn and,
// through Task.Recycle, from episode to episode. toks and zs only grow
// while an episode is played, so the prompt, observations and per-fault
// critiques it returned stay valid until it is recycled.
type episodeMemory struct {
	toks          []tasks.Token // the prompt and every observation
	zs            []int8        // every turn's per-fault critiques
	spare         tasks.Belief  // the posterior's other half: Update writes here, then they swap
	parsed        tasks.Belief  // the stated belief being judged
	levels        []int         // statedLevels' array
	before, after []bool        // the consistent set before and after a query
	scratch       tasks.Scratch // Splits' memory
	gen           instanceGen   // Recycle's instance generators and permutation
}

func newEpisode(t *Task, inst *instance) *episode {
	e := &episode{t: t, inst: inst}
	e.restart(true)
	return e
}

// restart sets the episode at its first turn on its instance, reusing its
// memory; text says whether its steps render their Text.
func (e *episode) restart(text bool) {
	t, k, m := e.t, e.t.cfg.Faults, &e.mem
	e.Rounds.Restart(t.cfg.Rounds)
	e.asked = tasks.Resize(e.asked, t.cfg.Questions)
	clear(e.asked)
	e.post, m.spare, e.stated = uniform(e.post, k), tasks.Resize(m.spare, k), uniform(e.stated, k)
	m.parsed = tasks.Resize(m.parsed, k) // so that a malformed belief, too, parses in place
	e.lastReply, e.lastElim = 0, false
	e.statedLevels, e.psis, e.final = nil, e.psis[:0], nil
	e.text = text
	if m.toks == nil {
		m.toks = make([]tasks.Token, 0, t.MaxTokens())
		m.zs = make([]int8, 0, t.cfg.Rounds*k)
	}
	m.toks, m.zs = m.toks[:0], m.zs[:0]
}

// uniform is tasks.Uniform(n) in b's memory.
func uniform(b tasks.Belief, n int) tasks.Belief {
	b = tasks.Resize(b, n)
	for i := range b {
		b[i] = 1 / float64(n)
	}
	return b
}

// emit appends toks to the episode's token memory and returns them there,
// capacity capped so that a caller's append never reaches later tokens.
func (e *episode) emit(toks ...tasks.Token) []tasks.Token {
	n := len(e.mem.toks)
	e.mem.toks = append(e.mem.toks, toks...)
	return e.mem.toks[n:len(e.mem.toks):len(e.mem.toks)]
}

// Prompt is BOS, the style token if any, then for each question its token
// followed by its K cells (fault 0 first), then the header of the first turn.
func (e *episode) Prompt() []tasks.Token {
	t := e.t
	n := len(e.mem.toks)
	e.mem.toks = tasks.AppendStart(e.mem.toks, t.style)
	for q, col := range e.inst.cells {
		e.emit(t.q0 + tasks.Token(q))
		for _, a := range col {
			e.emit(t.reply[a])
		}
	}
	e.emit(t.ask)
	return e.mem.toks[n:len(e.mem.toks):len(e.mem.toks)]
}

// Next is the turn the agent takes now.
func (e *episode) Next() tasks.Turn { return e.Rounds.Next(2, e.t.cfg.Faults+1) }

// Step judges the agent's tokens for the current turn.
func (e *episode) Step(action []tasks.Token) ([]tasks.Token, tasks.Step, error) {
	return e.Play("flodial", action, e.query, e.belief)
}

// query answers an AS turn: exactly one question token.
func (e *episode) query(action []tasks.Token) ([]tasks.Token, tasks.Step) {
	t, m := e.t, &e.mem
	s := tasks.Step{Kind: tasks.AS, TruthMass: math.NaN()}
	q := -1
	if len(action) == 1 {
		if i := int(action[0]) - int(t.q0); i >= 0 && i < t.cfg.Questions {
			q = i
		}
	}
	before := tasks.PlausibleInto(m.before, e.post, flat)
	m.before = before
	reply, splits := bad, false
	switch {
	case q < 0:
		s.Malformed = true
		if e.text {
			s.Text = "malformed query: " + t.vocab.Decode(action)
		}
	case e.asked[q]:
		reply, s.Repeat = rep, true
		if e.text {
			s.Text = fmt.Sprintf("q%d again", q)
		}
	default:
		e.asked[q] = true
		reply = e.inst.cells[q][e.inst.truth]
		splits = tasks.SplitsInto(e.post, flat, 3, e.inst.lik(q), &m.scratch)
		post, err := e.post.UpdateInto(m.spare, func(f int) float64 { return e.inst.lik(q)(f, reply) })
		if err != nil {
			panic("flodial: the true fault always agrees with its own reply: " + err.Error())
		}
		e.post, m.spare = post, e.post
		if e.text {
			s.Text = fmt.Sprintf("q%d → %s", q, replyWords[reply])
		}
	}
	e.lastReply = reply
	m.after = tasks.PlausibleInto(m.after, e.post, flat)
	e.lastElim = tasks.Eliminated(before, m.after)
	if t.cfg.Critiques != "spec" {
		s.Z = tasks.ConsistentAS(tasks.Count(before), s.Malformed, s.Repeat, splits)
	} else {
		s.Z = specAS(reply)
	}
	header := t.guess
	if e.LastRound() {
		header = t.answer
	}
	n := len(m.toks)
	e.emit(t.reply[reply])
	if t.cfg.Echo {
		for f := range t.cfg.Faults {
			cell := t.reply[bad]
			if q >= 0 {
				cell = t.reply[e.inst.cells[q][f]]
			}
			e.emit(cell)
		}
	}
	e.emit(header)
	return m.toks[n:len(m.toks):len(m.toks)], s
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
	t, m := e.t, &e.mem
	s := tasks.Step{Kind: tasks.BT, Final: e.FinalTurn()}
	b, ok := t.levels.ParseInto(m.parsed, action, t.cfg.Faults)
	if ok {
		m.parsed = b
	}
	s.Malformed = !ok
	if e.text {
		if s.Malformed {
			s.Text = "malformed belief: " + t.vocab.Decode(action)
		} else {
			s.Text = "belief " + t.vocab.Decode(action)
		}
	}
	if !s.Malformed {
		m.levels = tasks.Resize(m.levels, len(action))
		for i, tok := range action {
			m.levels[i] = int(tok - t.levels.First)
		}
		e.statedLevels = m.levels
	}
	switch {
	case s.Malformed:
		s.Z = -1
	case t.cfg.Critiques == "consistent":
		m.after = tasks.PlausibleInto(m.after, e.post, flat)
		s.Z = tasks.ConsistentBT(b, false, m.after, e.lastElim)
	case t.cfg.Critiques == "per-fault":
		c := tasks.PlausibleInto(m.after, e.post, flat)
		m.after = c
		s.Z = tasks.ConsistentBT(b, false, c, e.lastElim)
		n := len(m.zs)
		m.zs = tasks.AppendPerHypothesisBT(m.zs, e.statedLevels, c)
		s.TokenZ = m.zs[n:len(m.zs):len(m.zs)]
	case t.cfg.Critiques == "majority":
		m.after = tasks.PlausibleInto(m.after, e.post, flat)
		n := len(m.zs)
		m.zs = tasks.AppendPerHypothesisBT(m.zs, e.statedLevels, m.after)
		s.Z = tasks.MajorityBT(m.zs[n:])
		m.zs = m.zs[:n]
	case t.cfg.Critiques == "mass":
		m.after = tasks.PlausibleInto(m.after, e.post, flat)
		s.Z = tasks.MassBT(b, e.stated, false, m.after, e.lastElim)
	default:
		s.Z = specBT(e.lastReply, e.stated, b, e.inst.truth)
	}
	if !s.Malformed {
		copy(e.stated, b) // the same length: K
	}
	s.TruthMass = e.stated[e.inst.truth]
	e.psis = append(e.psis, s.TruthMass)
	if s.Final {
		if !s.Malformed {
			e.final = e.stated
		}
		return nil, s
	}
	if s.Malformed {
		return e.emit(t.reply[bad], t.ask), s
	}
	return e.emit(t.ask), s
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

// Reveal names the true fault (tasks.Revealer): its place in every
// question's row of cells, and so where a winning final belief puts its
// unique top level.
func (e *episode) Reveal() string {
	return fmt.Sprintf("true fault: %d (0-based: cell %d of every question's row, level %d of the final belief)",
		e.inst.truth, e.inst.truth, e.inst.truth)
}

// Measures summarises the episode (see tasks.Measures); I_AS starts from
// the flat prior.
func (e *episode) Measures() tasks.Measures {
	truth := e.inst.truth
	return diagnosis.Measures(e.Steps(), e.t.cfg.Faults, e.psis, e.post[truth]-1/float64(e.t.cfg.Faults), e.final, truth)
}

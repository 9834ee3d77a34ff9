package flodial

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"

	"arew/tasks"
	"arew/tasks/internal/diagnosis"
)

// Config holds every parameter that decides FloDial's difficulty. The zero
// value is not valid; start from EasyConfig or HardConfig.
type Config struct {
	// Faults is K, the number of candidate faults (rows of the table).
	Faults int
	// Questions is Q, the number of yes/no diagnostic questions (columns).
	Questions int
	// Rounds of query → reply → belief; the episode has 2·Rounds turns and
	// the last belief is the final answer.
	Rounds int
	// PUseless is the probability that a question is useless: answered NO
	// whatever the fault (a check that never fires), so that the spec's AS
	// critique (+1 after YES) is directional rather than a coin flip.
	PUseless float64
	// PNarrow is the probability that a question is narrow: YES for exactly
	// one fault. The rest (1 − PUseless − PNarrow) are balanced: YES for
	// ⌊K/2⌋ faults.
	PNarrow float64
	// PUnknown is the share of cells of informative questions whose answer is
	// UNK, a real third answer that the table shows.
	PUnknown float64
	// Levels is the number of weight levels per fault in a stated belief
	// (tokens "0" … Levels−1).
	Levels int
	// Critiques selects the critique rules, one of CritiqueRules: "spec"
	// (as the paper's code has them), "consistent" (the consistent-set
	// rules), "mass" and "majority" (the consistent AS rule and a turn-level
	// BT rule that reads no hidden truth), or "per-fault" (the consistent AS
	// rule, and each fault's level judged on its own); see the package doc,
	// "Critiques".
	Critiques string
	// Echo makes every reply restate the asked question's column: the
	// answer, then the column's K cells in fault order (K BAD tokens after a
	// malformed query), so the cells a belief must be checked against sit
	// next to it. An observation-design choice: the table is still needed
	// to choose a question, and the belief must still be carried across
	// rounds (package doc, "Echo").
	Echo bool
	// Style, if not empty, is a style token ("careful" or "hasty") that
	// the prompt carries after BOS, so one model can learn two behaviours
	// from demonstrations conditioned on it and be trained under one of
	// them (package doc, "Styles"; the mechanism is tasks', shared by the
	// tasks: tasks.StyleGroups, tasks.AppendStart). Both styles share one
	// vocabulary.
	Style string
	// Seed is the task seed: instances derive from it and their index.
	Seed uint64
}

// CritiqueRules are the critique rules a Config may name. All but
// per-fault give one sign per belief turn.
var CritiqueRules = []string{"spec", "consistent", "mass", "majority", "per-fault"}

// EasyConfig is flodial-easy: K = 6, half the questions useless (the design
// the FloDial prototype measured).
func EasyConfig() Config {
	return Config{Faults: 6, Questions: 12, Rounds: 5, PUseless: 0.5, PNarrow: 0.25,
		PUnknown: 0.1, Levels: 4, Critiques: "spec", Seed: 1}
}

// HardConfig is flodial-hard: K = 8 and more useless questions (Easy and
// Hard differ in the number of candidates and in how many questions are
// uninformative).
func HardConfig() Config {
	c := EasyConfig()
	c.Faults = 8
	c.PUseless = 0.6
	c.PNarrow = 0.2
	return c
}

// Validate reports the first invalid field.
func (c Config) Validate() error {
	switch {
	case c.Faults < 2 || c.Faults > 16:
		return fmt.Errorf("Faults must lie in [2, 16], got %d", c.Faults)
	case c.Questions < 1 || c.Questions > 32:
		return fmt.Errorf("Questions must lie in [1, 32], got %d", c.Questions)
	case c.Rounds < 1 || c.Rounds > 16:
		return fmt.Errorf("Rounds must lie in [1, 16], got %d", c.Rounds)
	case !(c.PUseless >= 0 && c.PNarrow >= 0 && c.PUseless+c.PNarrow <= 1):
		return fmt.Errorf("PUseless (%v) and PNarrow (%v) must be ≥ 0 with a sum ≤ 1", c.PUseless, c.PNarrow)
	case !(c.PUnknown >= 0 && c.PUnknown < 1):
		return fmt.Errorf("PUnknown must lie in [0, 1), got %v", c.PUnknown)
	case c.Levels < 2 || c.Levels > 10:
		return fmt.Errorf("Levels must lie in [2, 10], got %d", c.Levels)
	case !slices.Contains(CritiqueRules, c.Critiques):
		return fmt.Errorf(`Critiques must be one of %q, got %q`, CritiqueRules, c.Critiques)
	}
	return tasks.CheckStyle(c.Style)
}

func init() {
	for name, def := range map[string]func() Config{"flodial-easy": EasyConfig, "flodial-hard": HardConfig} {
		tasks.Register(name, func(raw json.RawMessage) (tasks.Task, error) {
			cfg := def()
			if err := tasks.DecodeConfig(raw, &cfg); err != nil {
				return nil, err
			}
			return New(name, cfg)
		})
	}
}

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

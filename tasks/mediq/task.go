package mediq

import (
	"encoding/json"
	"fmt"
	"slices"

	"arew/tasks"
	"arew/tasks/internal/diagnosis"
)

// Config holds every parameter that decides MediQ's difficulty; start from
// DefaultConfig.
type Config struct {
	// Diagnoses is D, the diagnoses of the knowledge base (≥ 4: each patient
	// gets four of them as options).
	Diagnoses int
	// Findings is F, the findings (atomic facts) of the knowledge base.
	Findings int
	// Hallmarks is the number of abnormal findings of each diagnosis.
	Hallmarks int
	// PGraded is the share of graded findings (normal/low/high); the others
	// are binary (absent/present).
	PGraded float64
	// SensMin and SensMax bound a hallmark's sensitivity: P(its abnormal
	// value | the diagnosis) ~ U[SensMin, SensMax].
	SensMin, SensMax float64
	// FalseMin and FalseMax bound a finding's false rate: P(abnormal | a
	// diagnosis without it) ~ U[FalseMin, FalseMax].
	FalseMin, FalseMax float64
	// PUnknown is the probability that the patient cannot answer about a
	// pertinent finding: one whose likelihood differs between the four
	// options' diagnoses (a pertinent positive or negative of the case).
	// PUnknownOther is the same for every other finding: as in MediQ's
	// vignettes, the record holds mostly the facts that matter to the
	// differential. Both depend on the options only, never on which one is
	// correct or on the value, so "cannot answer" carries no evidence.
	PUnknown, PUnknownOther float64
	// InitialFacts is the number of facts revealed in the prompt (drawn
	// independently of the diagnosis).
	InitialFacts int
	// Rounds of query → reply → belief; the episode has 2·Rounds turns.
	Rounds int
	// Levels is the number of weight levels in a stated belief (tokens "0" …).
	Levels int
	// RuleOut is the odds below which an option counts as ruled out for the
	// consistent-set critiques: C = {o : P(o | replies) ≥ RuleOut·max}.
	RuleOut float64
	// Critiques selects the critique rules, one of CritiqueRules: "spec"
	// (the paper's rules, with the counterfactual BT critique),
	// "consistent" (the consistent-set rules) or "mass" (the consistent AS
	// rule and the belief's mass on the consistent set; package doc).
	Critiques string
	// Seed is the task seed: the knowledge base and every instance derive
	// from it.
	Seed uint64
	// Style, if not empty, is a style token ("careful" or "hasty") that the
	// prompt carries after BOS (tasks.StyleGroups, tasks.AppendStart): the
	// shared mechanism of the locked bases (package doc, "Styles").
	Style string
}

// CritiqueRules are the critique rules a Config may name.
var CritiqueRules = []string{"spec", "consistent", "mass"}

// DefaultConfig is the mediq setting.
func DefaultConfig() Config {
	return Config{Diagnoses: 12, Findings: 32, Hallmarks: 2, PGraded: 0.3,
		SensMin: 0.8, SensMax: 0.95, FalseMin: 0.02, FalseMax: 0.1, PUnknown: 0.15, PUnknownOther: 0.8,
		InitialFacts: 1, Rounds: 4, Levels: 10, RuleOut: 0.1, Critiques: "spec", Seed: 1}
}

// Validate reports the first invalid field.
func (c Config) Validate() error {
	in := func(x, lo, hi float64) bool { return x >= lo && x <= hi }
	switch {
	case c.Diagnoses < 4 || c.Diagnoses > 32:
		return fmt.Errorf("Diagnoses must lie in [4, 32], got %d", c.Diagnoses)
	case c.Findings < 1 || c.Findings > 48:
		return fmt.Errorf("Findings must lie in [1, 48], got %d", c.Findings)
	case c.Hallmarks < 0 || c.Hallmarks > c.Findings:
		return fmt.Errorf("Hallmarks must lie in [0, Findings], got %d", c.Hallmarks)
	case !in(c.PGraded, 0, 1):
		return fmt.Errorf("PGraded must lie in [0, 1], got %v", c.PGraded)
	case !(in(c.FalseMin, 0, 1) && in(c.FalseMax, c.FalseMin, 1)):
		return fmt.Errorf("need 0 ≤ FalseMin ≤ FalseMax ≤ 1, got %v, %v", c.FalseMin, c.FalseMax)
	case !(in(c.SensMin, 0, 1) && in(c.SensMax, c.SensMin, 1) && c.SensMax+c.FalseMax/2 <= 1):
		return fmt.Errorf("need 0 ≤ SensMin ≤ SensMax and SensMax + FalseMax/2 ≤ 1, got %v, %v", c.SensMin, c.SensMax)
	case !(c.PUnknown >= 0 && c.PUnknown < 1 && c.PUnknownOther >= 0 && c.PUnknownOther <= 1):
		return fmt.Errorf("PUnknown must lie in [0, 1) and PUnknownOther in [0, 1], got %v, %v", c.PUnknown, c.PUnknownOther)
	case c.InitialFacts < 0 || c.InitialFacts > c.Findings:
		return fmt.Errorf("InitialFacts must lie in [0, Findings], got %d", c.InitialFacts)
	case c.Rounds < 1 || c.Rounds > 16:
		return fmt.Errorf("Rounds must lie in [1, 16], got %d", c.Rounds)
	case c.Levels < 2 || c.Levels > 10:
		return fmt.Errorf("Levels must lie in [2, 10], got %d", c.Levels)
	case !(c.RuleOut > 0 && c.RuleOut <= 1):
		return fmt.Errorf("RuleOut must lie in (0, 1], got %v", c.RuleOut)
	case !slices.Contains(CritiqueRules, c.Critiques):
		return fmt.Errorf("Critiques must be one of %q, got %q", CritiqueRules, c.Critiques)
	}
	return tasks.CheckStyle(c.Style)
}

func init() {
	tasks.Register("mediq", func(raw json.RawMessage) (tasks.Task, error) {
		cfg := DefaultConfig()
		if err := tasks.DecodeConfig(raw, &cfg); err != nil {
			return nil, err
		}
		return New("mediq", cfg)
	})
}

// Reply words: the values of binary findings, then of graded ones, then the
// replies that carry no fact.
var (
	binaryWords = []string{"absent", "present"}
	gradedWords = []string{"normal", "low", "high"}
	noFactWords = []string{"unknown", "REP", "BAD"}
)

// Task is a configured MediQ setting; it implements tasks.Task.
type Task struct {
	name   string
	cfg    Config
	kb     *kb
	vocab  *tasks.Vocab
	levels tasks.LevelFormat
	ask    tasks.Token
	guess  tasks.Token
	answer tasks.Token
	cf     tasks.Token
	binary [2]tasks.Token
	graded [3]tasks.Token
	unk    tasks.Token
	rep    tasks.Token
	bad    tasks.Token
	dx0    tasks.Token // id of diagnosis dx0; dx_i is dx0+i
	fn0    tasks.Token // id of finding fn0
	style  tasks.Token // the prompt's style token; 0 without a style
	// dialogue is what MediQ shares with FloDial: the scripted policies,
	// the best constant answer and the measures.
	dialogue *diagnosis.Dialogue
}

// New makes a MediQ task from a validated config.
func New(name string, cfg Config) (*Task, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("mediq config: %w", err)
	}
	v := tasks.NewVocab(tasks.StyleGroups(cfg.Style,
		[]string{"<ask>", "<guess>", "<answer>", "<cf>"},
		binaryWords, gradedWords, noFactWords,
		tasks.Prefixed("dx", cfg.Diagnoses),
		tasks.Prefixed("fn", cfg.Findings),
		tasks.Numbers(cfg.Levels),
	)...)
	t := &Task{name: name, cfg: cfg, kb: newKB(cfg), vocab: v,
		levels: tasks.LevelFormat{First: v.ID("0"), Levels: cfg.Levels},
		ask:    v.ID("<ask>"), guess: v.ID("<guess>"), answer: v.ID("<answer>"), cf: v.ID("<cf>"),
		unk: v.ID("unknown"), rep: v.ID("REP"), bad: v.ID("BAD"), dx0: v.ID("dx0"), fn0: v.ID("fn0"),
		style: tasks.StyleToken(v, cfg.Style)}
	for i, w := range binaryWords {
		t.binary[i] = v.ID(w)
	}
	for i, w := range gradedWords {
		t.graded[i] = v.ID(w)
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

// valueToken is the reply token of value v of finding f.
func (t *Task) valueToken(f, v int) tasks.Token {
	if t.kb.findings[f].graded {
		return t.graded[v]
	}
	return t.binary[v]
}

// promptLen is BOS, the style token if any, (finding, value) per initial
// fact, the four options and the header.
func (t *Task) promptLen() int { return 1 + tasks.StyleLen(t.cfg.Style) + 2*t.cfg.InitialFacts + 4 + 1 }

// MaxTokens bounds an episode whose turns respect Turn.MaxTokens: the
// prompt; per round a query (2 tokens with EOT) and its reply + header (2),
// then a belief (4 + <cf> + 4 + EOT = 10) and, unless it is the last, an
// optional BAD + header.
func (t *Task) MaxTokens() int {
	r := t.cfg.Rounds
	return t.promptLen() + r*4 + r*10 + (r-1)*2
}

// NewEpisode makes instance index of split.
func (t *Task) NewEpisode(split tasks.Split, index int) (tasks.Episode, error) {
	p, err := t.patient(split, index)
	if err != nil {
		return nil, err
	}
	return newEpisode(t, p), nil
}

package pe

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"arew/tasks"
)

// Task is a configured PE setting. It is safe for concurrent use: episodes
// share only read-only state.
type Task struct {
	name  string
	cfg   Config
	vocab *tasks.Vocab
	tok   tokenIDs
	style tasks.Token // the prompt's style token; 0 without a style
	qs    *querySpace
	parts *particles

	constOnce sync.Once
	constant  []int
	constErr  error
}

// tokenIDs are the first ids of the vocabulary's word groups.
type tokenIDs struct {
	num0, attr0, movie0             tasks.Token
	nums                            int
	yes, no, equal, repeat, invalid tasks.Token
	ask, guess, answer              tasks.Token
	replyOf                         map[Reply]tasks.Token
	diff0                           tasks.Token // "+0" of the echo layout; difference v is diff0 + v
}

// diffWords are the echo layout's score differences: "-max" … "-1", "+0",
// "+1" … "+max".
func diffWords(scoreMax int) []string {
	w := make([]string, 0, 2*scoreMax+1)
	for v := -scoreMax; v <= scoreMax; v++ {
		w = append(w, fmt.Sprintf("%+d", v))
	}
	return w
}

// New makes a task from a validated configuration; name is its setting name.
func New(name string, cfg Config) (*Task, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("pe config: %w", err)
	}
	if cfg.MinInformative == 0 {
		cfg.MinInformative = cfg.Queries
	}
	nums := max(cfg.ScoreMax+1, cfg.GuessLevels)
	groups := [][]string{
		tasks.Numbers(nums),
		tasks.Prefixed("a", cfg.Dims),
		tasks.Prefixed("m", cfg.Movies),
		[]string{"yes", "no", "equal", "repeat", "invalid", "ask", "guess", "answer"},
	}
	if cfg.Echo {
		groups = append(groups, diffWords(cfg.ScoreMax))
	}
	v := tasks.NewVocab(tasks.StyleGroups(cfg.Style, groups...)...)
	tok := tokenIDs{
		num0: v.ID("0"), attr0: v.ID("a0"), movie0: v.ID("m0"), nums: nums,
		yes: v.ID("yes"), no: v.ID("no"), equal: v.ID("equal"),
		repeat: v.ID("repeat"), invalid: v.ID("invalid"),
		ask: v.ID("ask"), guess: v.ID("guess"), answer: v.ID("answer"),
	}
	tok.replyOf = map[Reply]tasks.Token{Yes: tok.yes, No: tok.no, Equal: tok.equal}
	if cfg.Echo {
		tok.diff0 = v.ID("+0")
	}
	return &Task{
		name:  name,
		cfg:   cfg,
		vocab: v,
		tok:   tok,
		style: tasks.StyleToken(v, cfg.Style),
		qs:    newQuerySpace(cfg.Dims, cfg.focusSize(), cfg.Movies),
		parts: newParticles(cfg),
	}, nil
}

// Name is the setting name.
func (t *Task) Name() string { return t.name }

// Config returns the task's configuration (MinInformative resolved).
func (t *Task) Config() Config { return t.cfg }

// Vocab is the task's token set.
func (t *Task) Vocab() *tasks.Vocab { return t.vocab }

// queryLen is the number of tokens of a query (S attributes for PE-G, then
// two movies); guessLen that of a guess (D levels).
func (t *Task) queryLen() int {
	if t.cfg.Focus == 0 {
		return 2
	}
	return t.cfg.Focus + 2
}

func (t *Task) guessLen() int { return t.cfg.Dims }

// promptLen bounds the prompt: BOS, the style token if any, M rows of
// (movie name, D scores), under Pairs at most every pair of movies (two
// tokens each), and the first header. Without Pairs every prompt has this
// length.
func (t *Task) promptLen() int {
	n := 1 + tasks.StyleLen(t.cfg.Style) + t.cfg.Movies*(1+t.cfg.Dims) + 1
	if t.cfg.Pairs {
		n += 2 * binom(t.cfg.Movies, 2)
	}
	return n
}

// MaxTokens bounds an episode's token stream: the prompt (promptLen), then
// per query round the query and EOT plus the echo (Echo: one token per
// focus attribute), the reply and a header, per guess round the guess and
// EOT plus at most "invalid" and a header ("invalid" alone after the final
// guess). Under RepeatEcho every query round but the first may be a
// repeat, whose reply is one token longer ("repeat" before the restated
// reply).
func (t *Task) MaxTokens() int {
	q := t.cfg.Queries
	n := t.promptLen() + q*(t.queryLen()+1+t.echoLen()+2) + q*(t.guessLen()+1) + (q-1)*2 + 1
	if t.cfg.RepeatEcho {
		n += q - 1
	}
	return n
}

// echoLen is the number of echo tokens before the reply to a valid new
// query: the focus size under Echo, else 0.
func (t *Task) echoLen() int {
	if t.cfg.Echo {
		return t.cfg.focusSize()
	}
	return 0
}

// TurnLimit is the number of turns of every episode: 2·Queries.
func (t *Task) TurnLimit() int { return 2 * t.cfg.Queries }

// instance is the hidden state and the public table of one episode. w* is
// member truthIdx of the task's hypothesis set, drawn uniformly: the prior
// is uniform on the N particles, exactly the distribution the exact-Bayes
// measures and the strong policy assume.
type instance struct {
	truthIdx int
	truth    []float64
	table    [][]int
}

// Instance streams: each component of an instance draws from its own.
const (
	streamTruth = 1
	streamTable = 2
)

// maxTableDraws bounds the redraws of a table with too few informative
// queries.
const maxTableDraws = 1000

// truthIndex draws instance index's w* (its index in the particle set).
func (t *Task) truthIndex(split tasks.Split, index int) (int, error) {
	rw, err := tasks.InstanceRNG(t.cfg.Seed, split, index, streamTruth)
	if err != nil {
		return 0, err
	}
	return rw.IntN(t.parts.n), nil
}

func (t *Task) newInstance(split tasks.Split, index int) (instance, error) {
	ti, err := t.truthIndex(split, index)
	if err != nil {
		return instance{}, err
	}
	rt, err := tasks.InstanceRNG(t.cfg.Seed, split, index, streamTable)
	if err != nil {
		return instance{}, err
	}
	inst := instance{truthIdx: ti, truth: t.parts.at(ti)}
	for try := 0; try < maxTableDraws; try++ {
		inst.table = t.drawTable(rt)
		if t.informative(inst.table) >= t.cfg.MinInformative {
			return inst, nil
		}
	}
	return instance{}, fmt.Errorf("no movie table with ≥ %d non-dominated queries in %d draws: raise ScoreSpread or lower MinInformative",
		t.cfg.MinInformative, maxTableDraws)
}

// drawTable draws M movies: a quality q ~ U(0, ScoreMax) per movie, and per
// attribute clamp(round(q + σ·N(0,1)), 0, ScoreMax).
func (t *Task) drawTable(rng *rand.Rand) [][]int {
	c := t.cfg
	table := make([][]int, c.Movies)
	for m := range table {
		q := float64(c.ScoreMax) * rng.Float64()
		row := make([]int, c.Dims)
		for k := range row {
			x := int(math.Round(q + c.ScoreSpread*rng.NormFloat64()))
			row[k] = min(max(x, 0), c.ScoreMax)
		}
		table[m] = row
	}
	return table
}

// informative counts the non-dominated queries of a table.
func (t *Task) informative(table [][]int) int {
	n := 0
	for i := 0; i < t.qs.size(); i++ {
		if !dominated(t.qs.query(i), table) {
			n++
		}
	}
	return n
}

// NewEpisode makes instance index of split.
func (t *Task) NewEpisode(split tasks.Split, index int) (tasks.Episode, error) {
	return t.newEpisode(split, index)
}

func (t *Task) newEpisode(split tasks.Split, index int) (*Episode, error) {
	inst, err := t.newInstance(split, index)
	if err != nil {
		return nil, fmt.Errorf("pe %s: instance %v/%d: %w", t.name, split, index, err)
	}
	return newEpisode(t, inst), nil
}

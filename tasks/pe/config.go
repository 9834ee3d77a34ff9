package pe

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"

	"arew/tasks"
)

// Config decides every rule and every difficulty knob of a PE setting. The
// defaults of each registered setting are in settingDefaults; JSON overrides
// go through tasks.DecodeConfig and Validate.
type Config struct {
	// Seed is the task seed: the instances and the particle set derive from it.
	Seed uint64

	// Dims is D, the number of movie attributes (and of weights).
	Dims int
	// Focus is S, the size of the focus set of a PE-G query; 0 makes the
	// setting PE-F (a query is a pair of movies compared over all D).
	Focus int
	// Movies is M, the number of rows of the movie table.
	Movies int
	// ScoreMax: attribute scores are integers 0..ScoreMax.
	ScoreMax int
	// ScoreSpread is σ in x_mk = clamp(round(q_m + σ·ε_mk), 0, ScoreMax) with
	// q_m ~ U(0, ScoreMax) a movie's overall quality and ε ~ N(0, 1). A small
	// σ makes most pairs dominated (uninformative) queries: it sets the share
	// of useless questions.
	ScoreSpread float64
	// MinInformative: a table is redrawn until at least this many queries
	// are non-dominated (0: the number of query rounds).
	MinInformative int

	// The prior of w*: LikedMin..LikedMax (uniform) attributes, chosen
	// uniformly, get weights U(LikedLow, 1); the others get U(0, OtherHigh).
	LikedMin  int
	LikedMax  int
	LikedLow  float64
	OtherHigh float64

	// Queries is the number of query rounds; the turn limit is 2·Queries
	// (query, guess, …, query, final guess).
	Queries int
	// GuessLevels is L: a guess is D integers in 0..L−1 (not all 0).
	GuessLevels int
	// Threshold: success is cos(ŵ, w*) > Threshold.
	Threshold float64
	// EqualTol: the reply is Equal when the weighted advantages of the two
	// movies on the focus set balance within this relative tolerance:
	// |P − N| ≤ EqualTol·(P + N) (see reply). In [0, 1).
	EqualTol float64
	// Reward is "binary" (1 if cos > Threshold) or "cosine" (reward = cos).
	Reward string

	// Critiques selects the critique rules: "spec" (docs/arew.md §4, the
	// released code's rules) or "consistent" (the consistent-set rules on the
	// particle discretisation).
	Critiques string
	// FreezePenalty: a guess that does not move the belief (same direction
	// as the previous valid guess) after an informative reply gets z = −1
	// instead of 0 or +1 (toy-sel-findings, trap 3).
	FreezePenalty bool

	// Particles is N, the size of the hypothesis set H: N draws from the
	// prior made from Seed; each instance's w* is a uniformly drawn member.
	Particles int

	// Echo (a layout option, off by default; doc.go, "Layout options"): the
	// reply to a valid new query first restates the compared movies'
	// score differences x_A − x_B on the focus set, one signed token per
	// attribute ("-4" … "+4"), so the evidence a guess must agree with
	// sits beside the reply instead of in two rows of the table.
	Echo bool
	// Pairs (a PE-F layout option, off by default; doc.go, "Layout
	// options"): the prompt lists, after the table, the pairs of movies
	// that no movie dominates over the D attributes, "mA mB" with A < B, so
	// the informative questions are named, not found by comparing rows.
	Pairs bool
	// RepeatEcho (a layout option, off by default; doc.go, "Layout
	// options"): the reply to a repeated query is "repeat", then what the
	// query's first asking was told (its echo under Echo, and its
	// answer), so a repeat costs a question but not the evidence the
	// belief after it must agree with.
	RepeatEcho bool

	// Style, if not empty, is a style token ("careful" or "hasty") that the
	// prompt carries after BOS (tasks.StyleGroups, tasks.AppendStart): the
	// shared mechanism of the locked bases (doc.go, "Styles").
	Style string
}

// The registered settings.
var settingDefaults = map[string]Config{
	"pe-g-s2": withShape(6, 2),
	"pe-g-s3": withShape(6, 3),
	"pe-f-d6": withShape(6, 0),
	"pe-f-d8": withShape(8, 0),
}

// withShape is the common default with D attributes and focus size S.
func withShape(dims, focus int) Config {
	c := Config{
		Seed:          20260311,
		Dims:          dims,
		Focus:         focus,
		Movies:        12,
		ScoreMax:      4,
		ScoreSpread:   0.6,
		LikedMin:      2,
		LikedMax:      3,
		LikedLow:      0.3,
		OtherHigh:     0.1,
		Queries:       5,
		GuessLevels:   5,
		Threshold:     0.88,
		EqualTol:      0.3,
		Reward:        "binary",
		Critiques:     "spec",
		FreezePenalty: false,
		Particles:     4096,
	}
	if focus == 0 {
		c.Queries = 6
	}
	return c
}

func init() {
	for name, def := range settingDefaults {
		tasks.Register(name, func(raw json.RawMessage) (tasks.Task, error) {
			cfg := def
			if err := tasks.DecodeConfig(raw, &cfg); err != nil {
				return nil, err
			}
			return New(name, cfg)
		})
	}
}

// DefaultConfig returns the defaults of a registered setting.
func DefaultConfig(setting string) (Config, error) {
	c, ok := settingDefaults[setting]
	if !ok {
		return Config{}, fmt.Errorf("pe: unknown setting %q", setting)
	}
	return c, nil
}

// Limits that keep the vocabulary and the episode small, and bound what one
// task and one reset cost (docs/envserver.md, "Bounds"; measured by
// tasks/serve's TestResetCostAtBounds): the particle set holds 16 bytes per
// particle and attribute (≤ 512 KiB), an episode 4 bytes per particle, and
// a table draw scans at most maxQuerySpace queries.
const (
	maxDims          = 12
	maxMovies        = 16
	maxScore         = 9
	maxLevels        = 10
	maxQueries       = 10
	maxParticles     = 1 << 14
	maxParticleCells = 1 << 15 // Particles·Dims
	maxQuerySpace    = 2048    // C(D, S)·C(M, 2), the distinct queries
)

// The feasibility check of MinInformative: of feasibilityDraws tables drawn
// as instances draw theirs, at least feasibilityPass must have enough
// non-dominated queries, so that an instance needs a few draws, not the
// maxTableDraws that an impossible demand would scan before failing. A
// query space of at most cheapQuerySpace queries is exempt: even
// maxTableDraws scans of it take a few milliseconds.
const (
	feasibilityStream = 0x5045_4645_4153 // "PEFEAS"
	feasibilityDraws  = 16
	feasibilityPass   = 8
	cheapQuerySpace   = 128
)

// Validate reports the first invalid field.
func (c Config) Validate() error {
	switch {
	case c.Dims < 2 || c.Dims > maxDims:
		return fmt.Errorf("Dims %d outside [2, %d]", c.Dims, maxDims)
	case c.Focus < 0 || c.Focus == 1 || c.Focus >= c.Dims:
		return fmt.Errorf("Focus %d: must be 0 (PE-F) or in [2, Dims−1 = %d]", c.Focus, c.Dims-1)
	case c.Movies < 2 || c.Movies > maxMovies:
		return fmt.Errorf("Movies %d outside [2, %d]", c.Movies, maxMovies)
	case c.ScoreMax < 1 || c.ScoreMax > maxScore:
		return fmt.Errorf("ScoreMax %d outside [1, %d]", c.ScoreMax, maxScore)
	case !(c.ScoreSpread >= 0 && c.ScoreSpread <= 100):
		return fmt.Errorf("ScoreSpread %v outside [0, 100]", c.ScoreSpread)
	case c.MinInformative < 0:
		return fmt.Errorf("MinInformative %d is negative", c.MinInformative)
	case c.LikedMin < 1 || c.LikedMax < c.LikedMin || c.LikedMax > c.Dims:
		return fmt.Errorf("liked attributes [%d, %d]: need 1 ≤ LikedMin ≤ LikedMax ≤ Dims", c.LikedMin, c.LikedMax)
	case !(c.LikedLow >= 0 && c.LikedLow <= 1):
		return fmt.Errorf("LikedLow %v outside [0, 1]", c.LikedLow)
	case !(c.OtherHigh >= 0 && c.OtherHigh <= 1):
		return fmt.Errorf("OtherHigh %v outside [0, 1]", c.OtherHigh)
	case c.Queries < 1 || c.Queries > maxQueries:
		return fmt.Errorf("Queries %d outside [1, %d]", c.Queries, maxQueries)
	case c.MinInformative > c.numQueries():
		return fmt.Errorf("MinInformative %d exceeds the %d possible queries", c.MinInformative, c.numQueries())
	case c.GuessLevels < 2 || c.GuessLevels > maxLevels:
		return fmt.Errorf("GuessLevels %d outside [2, %d]", c.GuessLevels, maxLevels)
	case !(c.Threshold > 0 && c.Threshold < 1):
		return fmt.Errorf("Threshold %v outside (0, 1)", c.Threshold)
	case !(c.EqualTol >= 0 && c.EqualTol < 1):
		return fmt.Errorf("EqualTol %v outside [0, 1)", c.EqualTol)
	case c.Reward != "binary" && c.Reward != "cosine":
		return fmt.Errorf("Reward %q: want \"binary\" or \"cosine\"", c.Reward)
	case c.Critiques != "spec" && c.Critiques != "consistent":
		return fmt.Errorf("Critiques %q: want \"spec\" or \"consistent\"", c.Critiques)
	case c.Particles < 2 || c.Particles > maxParticles:
		return fmt.Errorf("Particles %d outside [2, %d]", c.Particles, maxParticles)
	case c.Particles*c.Dims > maxParticleCells:
		return fmt.Errorf("Particles·Dims = %d·%d over %d", c.Particles, c.Dims, maxParticleCells)
	case c.numQueries() > maxQuerySpace:
		return fmt.Errorf("C(Dims, Focus)·C(Movies, 2) = %d distinct queries, over %d: fewer movies or attributes", c.numQueries(), maxQuerySpace)
	}
	if c.Pairs && c.Focus != 0 {
		return fmt.Errorf("Pairs is a PE-F layout (Focus 0), got Focus %d", c.Focus)
	}
	if err := tasks.CheckStyle(c.Style); err != nil {
		return err
	}
	if c.Queries > c.numQueries() {
		return fmt.Errorf("Queries %d exceeds the %d distinct queries", c.Queries, c.numQueries())
	}
	return c.feasible()
}

// feasible draws feasibilityDraws tables from the configuration's own
// stream and requires that at least feasibilityPass of them have
// MinInformative non-dominated queries: a demand the tables rarely meet
// (a small ScoreSpread, a large MinInformative) is refused here rather than
// costing every reset up to maxTableDraws scans of the query space.
func (c Config) feasible() error {
	need := c.MinInformative
	if need == 0 {
		need = c.Queries
	}
	if c.numQueries() <= cheapQuerySpace {
		return nil
	}
	probe := &Task{cfg: c, qs: newQuerySpace(c.Dims, c.focusSize(), c.Movies)}
	rng := rand.New(rand.NewPCG(c.Seed, feasibilityStream))
	pass := 0
	for range feasibilityDraws {
		table := probe.drawTable(rng)
		n := 0
		for i := 0; i < probe.qs.size() && n < need; i++ {
			if !dominated(probe.qs.query(i), table) {
				n++
			}
		}
		if n >= need {
			pass++
		}
	}
	if pass < feasibilityPass {
		return fmt.Errorf("MinInformative %d is rarely met: %d of %d tables drawn have that many non-dominated queries (need %d): raise ScoreSpread or lower MinInformative",
			need, pass, feasibilityDraws, feasibilityPass)
	}
	return nil
}

// focusSize is the number of attributes a query compares (D for PE-F).
func (c Config) focusSize() int {
	if c.Focus == 0 {
		return c.Dims
	}
	return c.Focus
}

// numQueries is the number of distinct queries: C(D, S)·C(M, 2).
func (c Config) numQueries() int {
	return binom(c.Dims, c.focusSize()) * binom(c.Movies, 2)
}

func binom(n, k int) int {
	if k < 0 || k > n {
		return 0
	}
	r := 1
	for i := 1; i <= k; i++ {
		r = r * (n - k + i) / i
	}
	return r
}

package alfworld

import (
	"encoding/json"
	"fmt"
	"math"

	"arew/tasks"
	"arew/tasks/textworld"
)

// Config sets the world; every field can be overridden by JSON (FromJSON).
type Config struct {
	Seed uint64
	// Layouts is the size of the seen layout pool that Train and Test draw
	// from (cycling through the four room types).
	Layouts int
	// Train, Test, TestOOD are the split sizes (ALFWorld's test splits have
	// 140 seen and 134 unseen games); Val is the validation split's, drawn
	// as Test is (Instance).
	Train, Test, TestOOD, Val int
	// MaxSteps caps an episode.
	MaxSteps int
	// OODUnusual is the share of TestOOD games that also hide their targets
	// in their type's other classes, where training never puts that type;
	// the rest put them at their usual classes, so they differ from the
	// training games by their layout alone (Unusual says which).
	OODUnusual float64
}

// DefaultConfig is the documented default (package doc, "Sizing").
func DefaultConfig() Config {
	return Config{Seed: 12, Layouts: 40, Train: 400, Test: 140, TestOOD: 134, Val: 140, MaxSteps: 50, OODUnusual: 0.25}
}

// Sizes are the split sizes.
func (c Config) Sizes() textworld.Sizes {
	return textworld.Sizes{Train: c.Train, Test: c.Test, TestOOD: c.TestOOD, Val: c.Val}
}

// Validate rejects sizes that make no world (textworld.Bounds).
func (c Config) Validate() error {
	if err := textworld.Bounds(c.Sizes(), c.MaxSteps); err != nil {
		return err
	}
	if c.TestOOD <= 0 {
		return fmt.Errorf("TestOOD must be positive, got %d", c.TestOOD)
	}
	if c.Layouts < len(rooms) || c.Layouts > 100000 {
		return fmt.Errorf("Layouts must lie in [%d, 100000], got %d", len(rooms), c.Layouts)
	}
	if !(c.OODUnusual >= 0 && c.OODUnusual <= 1) {
		return fmt.Errorf("OODUnusual must lie in [0, 1], got %v", c.OODUnusual)
	}
	return nil
}

// Unusual reports whether game index of the OOD split hides its targets
// in their type's other classes: exactly ⌊n·OODUnusual⌋ of the first n
// games do, spread evenly (index i is unusual when ⌊(i+1)·s⌋ > ⌊i·s⌋; at
// 0.25 the games 3, 7, 11, …).
func (c Config) Unusual(index int) bool {
	s := c.OODUnusual
	return math.Floor(float64(index+1)*s) > math.Floor(float64(index)*s)
}

// World makes the instances of a configuration.
type World struct {
	cfg   Config
	vocab *tasks.Vocab
	pool  []Layout
	seen  map[string]bool
	keys  textworld.Keys // the games' fingerprints, by split
}

// New builds the world of cfg.
func New(cfg Config) (*World, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("alfworld: %w", err)
	}
	w := &World{cfg: cfg, vocab: newVocab(), seen: map[string]bool{}}
	for id := 0; id < cfg.Layouts; id++ {
		l := seenLayout(cfg.Seed, id)
		w.pool = append(w.pool, l)
		w.seen[l.Signature()] = true
	}
	for i := 0; i < cfg.Train; i++ {
		in, err := w.Instance(textworld.Train, i)
		if err != nil {
			return nil, err
		}
		w.keys.AddTrain(in.Fingerprint())
	}
	return w, nil
}

// FromJSON is New with DefaultConfig overridden by a JSON object.
func FromJSON(raw json.RawMessage) (*World, error) {
	return textworld.Build("alfworld", DefaultConfig, raw, New)
}

// Config is the world's configuration.
func (w *World) Config() Config { return w.cfg }

// Vocab is the shared vocabulary of every instance.
func (w *World) Vocab() *tasks.Vocab { return w.vocab }

// NewEnv starts instance index of split.
func (w *World) NewEnv(split textworld.Split, index int) (*Env, error) {
	in, err := w.Instance(split, index)
	if err != nil {
		return nil, err
	}
	return newEnv(w, in), nil
}

// Env is NewEnv as a textworld.Env, for textworld.Evaluate.
func (w *World) Env(split textworld.Split) func(int) (textworld.Env, error) {
	return func(i int) (textworld.Env, error) { return w.NewEnv(split, i) }
}

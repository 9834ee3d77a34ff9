package sciworld

import (
	"encoding/json"
	"fmt"

	"arew/tasks"
	"arew/tasks/textworld"
)

// Config sets the lab; every field can be overridden by JSON (FromJSON).
type Config struct {
	Seed uint64
	// Train and Test are the numbers of games of the splits; the test
	// games' expert states are the held-out states of the accuracy metric.
	// Val is the validation split's, drawn as Test is.
	Train, Test, Val int
	// MaxSteps caps an episode.
	MaxSteps int
}

// DefaultConfig is the documented default (package doc, "Sizing").
func DefaultConfig() Config { return Config{Seed: 12, Train: 200, Test: 100, Val: 100, MaxSteps: 40} }

// Validate rejects settings that make no lab (textworld.Bounds).
func (c Config) Validate() error { return textworld.Bounds(c.Sizes(), c.MaxSteps) }

// Sizes are the split sizes.
func (c Config) Sizes() textworld.Sizes {
	return textworld.Sizes{Train: c.Train, Test: c.Test, Val: c.Val}
}

// World makes the games of a configuration.
type World struct {
	cfg   Config
	vocab *tasks.Vocab
	keys  textworld.Keys // the games' fingerprints, by split
}

// New builds the lab of cfg.
func New(cfg Config) (*World, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("sciworld: %w", err)
	}
	w := &World{cfg: cfg, vocab: newVocab()}
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
	return textworld.Build("sciworld", DefaultConfig, raw, New)
}

// Config is the lab's configuration.
func (w *World) Config() Config { return w.cfg }

// Vocab is the shared vocabulary of every game.
func (w *World) Vocab() *tasks.Vocab { return w.vocab }

const instanceStream = 1

// Instance makes game index of split; a test or validation draw equal to a
// training game is drawn again, and a validation draw equal to a test game.
func (w *World) Instance(split textworld.Split, index int) (*Instance, error) {
	rng, err := w.cfg.Sizes().Draw(w.cfg.Seed, split, index, instanceStream)
	if err != nil {
		return nil, err
	}
	for try := 0; try < 1000; try++ {
		in := generate(Procedures[rng.IntN(len(Procedures))], rng)
		fresh, err := w.keys.Fresh(split, in.Fingerprint(), w.cfg.Test, w.fingerprint)
		if err != nil {
			return nil, err
		}
		if fresh {
			return in, nil
		}
	}
	return nil, fmt.Errorf("sciworld: no fresh game for %v %d", split, index)
}

// NewEnv starts game index of split.
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

// fingerprint is the fingerprint of game index of split.
func (w *World) fingerprint(split textworld.Split, index int) (string, error) {
	in, err := w.Instance(split, index)
	if err != nil {
		return "", err
	}
	return in.Fingerprint(), nil
}

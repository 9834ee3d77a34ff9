package webshop

import (
	"encoding/json"
	"fmt"

	"arew/tasks"
	"arew/tasks/textworld"
)

// Config sets the store; every field can be overridden by JSON (FromJSON).
type Config struct {
	Seed uint64
	// PerCategory is the number of products of each of the 8 categories.
	PerCategory int
	// Train, Test and Val are the numbers of instructions of the splits
	// (Val, the validation split, is drawn as Test is).
	Train, Test, Val int
	// MaxSteps caps an episode.
	MaxSteps int
}

// DefaultConfig is the documented default (package doc, "Sizing").
func DefaultConfig() Config {
	return Config{Seed: 12, PerCategory: 30, Train: 600, Test: 200, Val: 200, MaxSteps: 15}
}

// MaxPerCategory is the largest PerCategory: a results page reads
// "results page i of N", with N a number word of the vocabulary (at most
// textworld.MaxNumber), and a query naming every category (MaxQuery ≥ 8
// words) matches the whole catalogue, ⌈8·PerCategory / PageSize⌉ pages.
// So 8·PerCategory ≤ PageSize·MaxNumber: 37.
// (TestLargestStoreCountsEveryPage checks the count of categories.)
const MaxPerCategory = PageSize * textworld.MaxNumber / 8

// Validate rejects settings that make no store (textworld.Bounds), and catalogues whose
// results could be counted past the number words (MaxPerCategory).
func (c Config) Validate() error {
	if err := textworld.Bounds(c.Sizes(), c.MaxSteps); err != nil {
		return err
	}
	if c.PerCategory < 1 || c.PerCategory > MaxPerCategory {
		return fmt.Errorf("PerCategory must lie in [1, %d], got %d: a search for every category lists all %d products, "+
			"and its results pages are counted with number words up to %d (%d per page)",
			MaxPerCategory, c.PerCategory, c.PerCategory*len(categories), textworld.MaxNumber, PageSize)
	}
	return nil
}

// Sizes are the split sizes.
func (c Config) Sizes() textworld.Sizes {
	return textworld.Sizes{Train: c.Train, Test: c.Test, Val: c.Val}
}

// World is the store: the catalogue and the instruction splits.
type World struct {
	cfg       Config
	vocab     *tasks.Vocab
	catalogue []Product
	byName    map[string]int
	keys      textworld.Keys // the instructions' keys, by split
}

// New builds the store of cfg.
func New(cfg Config) (*World, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("webshop: %w", err)
	}
	w := &World{cfg: cfg, catalogue: newCatalogue(cfg.Seed, cfg.PerCategory), byName: map[string]int{}}
	var names []string
	for _, p := range w.catalogue {
		w.byName[p.Name()] = p.ID
		names = append(names, p.Name())
	}
	w.vocab = newVocab(names)
	for i := 0; i < cfg.Train; i++ {
		in, err := w.Instruction(textworld.Train, i)
		if err != nil {
			return nil, err
		}
		w.keys.AddTrain(in.key())
	}
	return w, nil
}

// FromJSON is New with DefaultConfig overridden by a JSON object.
func FromJSON(raw json.RawMessage) (*World, error) {
	return textworld.Build("webshop", DefaultConfig, raw, New)
}

// Config is the store's configuration.
func (w *World) Config() Config { return w.cfg }

// Vocab is the shared vocabulary of every episode.
func (w *World) Vocab() *tasks.Vocab { return w.vocab }

// Catalogue lists the products (a copy of the slice).
func (w *World) Catalogue() []Product { return append([]Product(nil), w.catalogue...) }

// instructionStream is the RNG stream of the instruction draw.
const instructionStream = 1

// Instruction makes instruction index of split. A test or validation draw
// that repeats a training instruction is drawn again, and a validation draw
// that repeats a test one, so the splits share no instruction.
func (w *World) Instruction(split textworld.Split, index int) (Instruction, error) {
	rng, err := w.cfg.Sizes().Draw(w.cfg.Seed, split, index, instructionStream)
	if err != nil {
		return Instruction{}, err
	}
	for try := 0; try < 1000; try++ {
		in := newInstruction(w.catalogue, rng)
		fresh, err := w.keys.Fresh(split, in.key(), w.cfg.Test, w.key)
		if err != nil {
			return Instruction{}, err
		}
		if fresh {
			return in, nil
		}
	}
	return Instruction{}, fmt.Errorf("webshop: no fresh instruction for %v %d (catalogue too small?)", split, index)
}

// NewEnv starts instruction index of split.
func (w *World) NewEnv(split textworld.Split, index int) (*Env, error) {
	in, err := w.Instruction(split, index)
	if err != nil {
		return nil, err
	}
	return newEnv(w, in), nil
}

// Env is NewEnv as a textworld.Env, for textworld.Evaluate.
func (w *World) Env(split textworld.Split) func(int) (textworld.Env, error) {
	return func(i int) (textworld.Env, error) { return w.NewEnv(split, i) }
}

// key is the key of instruction index of split.
func (w *World) key(split textworld.Split, index int) (string, error) {
	in, err := w.Instruction(split, index)
	if err != nil {
		return "", err
	}
	return in.key(), nil
}

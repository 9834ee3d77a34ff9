package textworld

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"arew/tasks"
)

// World is a configured text environment as a server offers it (package
// tasks/serve): its vocabulary, its instances and the rules a language
// model reads. The *World of alfworld, webshop and sciworld implement it.
type World interface {
	Vocab() *tasks.Vocab
	// Env makes instance index of split (an error outside the split).
	Env(split Split) func(index int) (Env, error)
	// Rules is the environment's part of the system prompt: the setting,
	// the command forms, how an episode ends and how it is scored. The
	// prompt is Rules, then CommandRules.
	Rules() string
}

// Factory builds a World from a JSON object of overrides of the
// environment's defaults (nil or empty: the defaults). Unknown fields and
// values past the serving bounds (ServeBounds) are errors.
type Factory func(config json.RawMessage) (World, error)

var (
	worldsMu sync.Mutex
	worlds   = map[string]Factory{}
)

// Register makes a text environment available to servers by name (the
// environment packages call it from init). A duplicate name is a
// programmer bug and panics.
func Register(name string, f Factory) {
	worldsMu.Lock()
	defer worldsMu.Unlock()
	if _, dup := worlds[name]; dup {
		panic(fmt.Sprintf("textworld: %q registered twice", name))
	}
	worlds[name] = f
}

// Registered reports whether name is a registered text environment.
func Registered(name string) bool {
	worldsMu.Lock()
	defer worldsMu.Unlock()
	_, ok := worlds[name]
	return ok
}

// NewWorld builds the named environment with the given overrides.
func NewWorld(name string, config json.RawMessage) (World, error) {
	worldsMu.Lock()
	f, ok := worlds[name]
	worldsMu.Unlock()
	if !ok {
		return nil, fmt.Errorf("unknown text environment %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	return f(config)
}

// Names lists the registered text environments, sorted.
func Names() []string {
	worldsMu.Lock()
	defer worldsMu.Unlock()
	out := make([]string, 0, len(worlds))
	for n := range worlds {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Build decodes raw (tasks.DecodeConfig) onto the environment's defaults
// and builds its world: a world's FromJSON. Errors name the environment.
func Build[C, W any](name string, defaults func() C, raw json.RawMessage, build func(C) (W, error)) (W, error) {
	cfg := defaults()
	if err := tasks.DecodeConfig(raw, &cfg); err != nil {
		var none W
		return none, fmt.Errorf("%s: %w", name, err)
	}
	return build(cfg)
}

// Serve registers name (Register) with the Factory that decodes a client's
// overrides onto defaults (Build), holds them to bounds (ServeBounds and
// any bound of the environment's own) and builds the world.
func Serve[C any, W World](name string, defaults func() C, bounds func(C) error, build func(C) (W, error)) {
	Register(name, func(raw json.RawMessage) (World, error) {
		w, err := Build(name, defaults, raw, func(c C) (W, error) {
			if err := bounds(c); err != nil {
				var none W
				return none, fmt.Errorf("%s: %w", name, err)
			}
			return build(c)
		})
		if err != nil {
			return nil, err
		}
		return w, nil
	})
}

// Bounds checks the config fields common to the three environments: the
// split sizes (Sizes.Validate), each at most 100000 (a world holds every
// training game's fingerprint), and MaxSteps in [1, 1000].
func Bounds(z Sizes, maxSteps int) error {
	if err := z.Validate(); err != nil {
		return err
	}
	if z.Train > 100000 || z.Test > 100000 || z.TestOOD > 100000 || z.Val > 100000 {
		return fmt.Errorf("split sizes must stay at most 100000")
	}
	if maxSteps < 1 || maxSteps > 1000 {
		return fmt.Errorf("MaxSteps must lie in [1, 1000], got %d", maxSteps)
	}
	return nil
}

// The serving bounds: a configuration a server builds on a client's
// request holds every training game's fingerprint and runs at most
// MaxSteps steps per episode, so both are bounded tighter than the
// environments' own validation (which serves offline studies).
const (
	MaxServedSplit = 1000
	MaxServedSteps = 100
)

// ServeBounds checks the fields common to the three environments against
// the serving bounds.
func ServeBounds(z Sizes, maxSteps int) error {
	if z.Train > MaxServedSplit || z.Test > MaxServedSplit || z.TestOOD > MaxServedSplit || z.Val > MaxServedSplit {
		return fmt.Errorf("split sizes must stay at most %d when served (got train %d, test %d, test-ood %d, val %d)",
			MaxServedSplit, z.Train, z.Test, z.TestOOD, z.Val)
	}
	if maxSteps > MaxServedSteps {
		return fmt.Errorf("MaxSteps must stay at most %d when served, got %d", MaxServedSteps, maxSteps)
	}
	return nil
}

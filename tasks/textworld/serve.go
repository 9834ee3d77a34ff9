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
	if z.Train > MaxServedSplit || z.Test > MaxServedSplit || z.TestOOD > MaxServedSplit {
		return fmt.Errorf("split sizes must stay at most %d when served (got train %d, test %d, test-ood %d)", MaxServedSplit, z.Train, z.Test, z.TestOOD)
	}
	if maxSteps > MaxServedSteps {
		return fmt.Errorf("MaxSteps must stay at most %d when served, got %d", MaxServedSteps, maxSteps)
	}
	return nil
}

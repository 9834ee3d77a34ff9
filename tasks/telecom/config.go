package telecom

import (
	"encoding/json"
	"fmt"

	"arew/tasks"
)

// Config holds everything that decides an instance's difficulty and how
// steps are judged. JSON overrides of it are what tasks.New accepts.
type Config struct {
	// Seed is the task seed: instances derive from it and the split index.
	Seed uint64
	// MaxTurns is the turn limit (spec: ~22). The last turn is Final; an
	// episode that reaches it without done/transfer is not closed and scores 0.
	MaxTurns int
	// LateTurn: under the spec critique, an unproductive step whose 1-based
	// number is ≥ LateTurn is −1 (earlier it is 0). Released code: 6.
	LateTurn int
	// PTwo is the probability that an instance has two faults rather than one.
	PTwo float64
	// Faults are the enabled fault types (names as in doc.go: airplane, sim,
	// suspended, broken, data, quota, roaming, droam, plan). Default: all nine.
	Faults []string
	// Lines is the number of line ids in play (1 … 8): the customer's line,
	// named in the prompt, is one of them; account tools on any other fail.
	Lines int
	// Critiques selects the AS critique rules: "spec" (the released code's,
	// the default) or "consistent" (the consistent-set rules).
	Critiques string
	// Style is "" (none), "careful" or "hasty": the style token the prompt
	// carries after BOS, the shared mechanism of the locked bases (tasks
	// doc, "Styles and the locked demonstrator"). It changes nothing else.
	Style string
}

// DefaultConfig is the configuration of the registered settings.
func DefaultConfig() Config {
	return Config{
		Seed:      0x7e1ec0,
		MaxTurns:  22,
		LateTurn:  6,
		PTwo:      0.5,
		Faults:    append([]string(nil), faultNames[:]...),
		Lines:     4,
		Critiques: "spec",
	}
}

// maxTurnsLimit keeps the longest episode within the 384-token budget
// (prompt 5 + 7 tokens per turn: 285 tokens at 40 turns).
const maxTurnsLimit = 40

// validate checks the configuration and returns the enabled faults.
func (c Config) validate() ([]fault, error) {
	if c.MaxTurns < 2 || c.MaxTurns > maxTurnsLimit {
		return nil, fmt.Errorf("MaxTurns must be in [2, %d], got %d", maxTurnsLimit, c.MaxTurns)
	}
	if c.LateTurn < 1 || c.LateTurn > maxTurnsLimit {
		return nil, fmt.Errorf("LateTurn must be in [1, %d], got %d", maxTurnsLimit, c.LateTurn)
	}
	if !(c.PTwo >= 0 && c.PTwo <= 1) {
		return nil, fmt.Errorf("PTwo must be in [0, 1], got %v", c.PTwo)
	}
	if c.Lines < 1 || c.Lines > maxLines {
		return nil, fmt.Errorf("Lines must be in [1, %d], got %d", maxLines, c.Lines)
	}
	if c.Critiques != "spec" && c.Critiques != "consistent" {
		return nil, fmt.Errorf(`Critiques must be "spec" or "consistent", got %q`, c.Critiques)
	}
	if err := tasks.CheckStyle(c.Style); err != nil {
		return nil, err
	}
	if len(c.Faults) == 0 {
		return nil, fmt.Errorf("Faults must name at least one fault type")
	}
	var out []fault
	seen := map[fault]bool{}
	for _, name := range c.Faults {
		f, ok := faultByName(name)
		if !ok {
			return nil, fmt.Errorf("unknown fault %q (known: %v)", name, faultNames)
		}
		if seen[f] {
			return nil, fmt.Errorf("fault %q listed twice", name)
		}
		seen[f] = true
		out = append(out, f)
	}
	return out, nil
}

func init() {
	for _, s := range []setting{solo, dual} {
		name := "telecom-" + s.String()
		tasks.Register(name, func(raw json.RawMessage) (tasks.Task, error) {
			cfg := DefaultConfig()
			if err := tasks.DecodeConfig(raw, &cfg); err != nil {
				return nil, err
			}
			return newTask(name, s, cfg)
		})
	}
}

package flodial

import (
	"encoding/json"
	"fmt"
	"slices"

	"arew/tasks"
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

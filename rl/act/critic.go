package act

import (
	"fmt"
	"math/rand/v2"

	"arew/model"
	"arew/tasks"
	"arew/tasks/textworld"
)

// CollectConfig is the construction of D_critic.
type CollectConfig struct {
	K           int     `json:"k"`           // alternatives sampled per expert state
	History     int     `json:"history"`     // turns of context (textworld.History)
	MaxAction   int     `json:"max_action"`  // tokens of a sampled action, EOT excluded
	Temperature float64 `json:"temperature"` // sampling temperature of π_θ0
	Seed        uint64  `json:"seed"`
	// Grammar also drops (as malformed) samples that are not commands of
	// the environment's grammar. Off by default: the paper drops only the
	// expert's action and duplicates.
	Grammar bool `json:"grammar"`
}

// DefaultCollect: K = 4 samples at temperature 1, k = 2 turns, actions of
// at most 16 tokens.
func DefaultCollect() CollectConfig {
	return CollectConfig{K: 4, History: textworld.History, MaxAction: 16, Temperature: 1, Seed: 1}
}

// Validate reports the first bad field.
func (c CollectConfig) Validate() error {
	if c.K < 1 || c.History < 0 || c.MaxAction < 1 || !(c.Temperature > 0) {
		return fmt.Errorf("collect: need k ≥ 1, history ≥ 0, max_action ≥ 1, temperature > 0; got %d, %d, %d, %v",
			c.K, c.History, c.MaxAction, c.Temperature)
	}
	return nil
}

// CollectStats counts what became of the samples.
type CollectStats struct {
	States    int `json:"states"`    // expert states visited
	Sampled   int `json:"sampled"`   // K per state
	Kept      int `json:"kept"`      // examples of D_critic
	Expert    int `json:"expert"`    // dropped: equal to the expert's action
	Duplicate int `json:"duplicate"` // dropped: proposed before at this state
	Malformed int `json:"malformed"` // dropped: no EOT in time, or structure tokens
	// Admissible is how many kept alternatives apply at their state.
	Admissible int `json:"admissible"`
}

// CriticData builds D_critic on instances [first, first+n) of split: it
// replays the expert and, at each of its states, samples K actions from
// π_θ0 under decoding d, drops those equal to the expert's action, repeats
// and malformed samples, and keeps (s, a⁺, a⁻) with the order of the two
// in the prompt drawn at random and the outcome of each action (run on a
// clone of the environment) for Early Experience. The states are those of
// Env.ExpertPairs on the same instances, in the same order. Under the trie
// every alternative is a listed command, so admissible; under the grammar
// a command, applicable or not.
func CriticData(pi0 *model.Model, env *Env, d Decoding, split textworld.Split, first, n int, cfg CollectConfig) ([]CriticExample, CollectStats, error) {
	var st CollectStats
	if err := cfg.Validate(); err != nil {
		return nil, st, err
	}
	p, err := NewEnvPolicy("pi0", pi0, env, d, cfg.MaxAction, cfg.Temperature)
	if err != nil {
		return nil, st, err
	}
	var out []CriticExample
	for i := first; i < first+n; i++ {
		e, err := env.New(split, i)
		if err != nil {
			return nil, st, fmt.Errorf("critic data: %w", err)
		}
		rng := rand.New(rand.NewPCG(cfg.Seed, uint64(split)<<48|uint64(i)))
		var past []textworld.Turn
		for !e.Done() {
			s := textworld.Snapshot(e, past, cfg.History)
			expert := append([]tasks.Token(nil), e.Expert()...)
			expertObs, err := textworld.Outcome(e, expert)
			if err != nil {
				return nil, st, fmt.Errorf("critic data: instance %d: %w", i, err)
			}
			st.States++
			samples := make([][]tasks.Token, cfg.K)
			for j := range samples {
				if a, ok := p.Propose(s, rng); ok {
					samples[j] = a
				}
			}
			var grammar func([]tasks.Token) bool
			if cfg.Grammar {
				grammar = env.wellFormed
			}
			for _, alt := range Alternatives(env.Vocab, expert, samples, grammar, &st) {
				altObs, err := textworld.Outcome(e, alt)
				if err != nil {
					return nil, st, fmt.Errorf("critic data: instance %d: %w", i, err)
				}
				c := CriticExample{State: s, Expert: expert, Alt: alt, ExpertFirst: rng.IntN(2) == 0,
					AltAdmissible: env.Admits(s, alt), ExpertObs: expertObs, AltObs: altObs}
				if c.AltAdmissible {
					st.Admissible++
				}
				out = append(out, c)
			}
			if _, err := e.Step(expert); err != nil {
				return nil, st, fmt.Errorf("critic data: instance %d: %w", i, err)
			}
			past = append(past, textworld.Turn{Obs: s.Obs, Action: expert})
		}
	}
	return out, st, nil
}

// Alternatives filters the K samples at one state: a sample that is nil or
// empty (no EOT in time), holds a structure token, or fails grammar (when
// not nil) is malformed, one equal to the expert's action or to an earlier
// sample is dropped; the rest are kept in order. st counts each case.
func Alternatives(v *tasks.Vocab, expert []tasks.Token, samples [][]tasks.Token, grammar func([]tasks.Token) bool, st *CollectStats) [][]tasks.Token {
	var kept [][]tasks.Token
	for _, a := range samples {
		st.Sampled++
		if _, ok := textworld.ReadWords(v, a); !ok || len(a) == 0 || (grammar != nil && !grammar(a)) {
			st.Malformed++
			continue
		}
		if textworld.Equal(a, expert) {
			st.Expert++
			continue
		}
		if textworld.Contains(kept, a) {
			st.Duplicate++
			continue
		}
		kept = append(kept, a)
		st.Kept++
	}
	return kept
}

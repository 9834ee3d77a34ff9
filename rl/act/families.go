package act

import (
	"fmt"
	"slices"
	"strings"

	"arew/model"
	"arew/tasks/textworld"
)

// initPairs are the expert pairs π_θ0 draws from, and its share of them,
// given the training games' pairs (games[i]: game i's): every pair and
// cfg.InitShare, or, with cfg.InitFamilies, the pairs of the games of
// those families and the share of them that gives π_θ0 as many pairs as
// cfg.InitShare of every pair would (all of them, if they are fewer).
func initPairs(cfg Config, env *Env, games [][]textworld.Pair) ([]textworld.Pair, float64, error) {
	pairs := slices.Concat(games...)
	if len(cfg.InitFamilies) == 0 {
		return pairs, cfg.InitShare, nil
	}
	if env.Family == nil {
		return nil, 0, fmt.Errorf("act %s: init_families: this environment has no task families", env.Name)
	}
	for _, f := range cfg.InitFamilies {
		if !slices.Contains(env.Families, f) {
			return nil, 0, fmt.Errorf("act %s: init_families: no family %q (want some of %s)", env.Name, f, strings.Join(env.Families, ", "))
		}
	}
	var out []textworld.Pair
	for i, ps := range games {
		f, err := env.Family(textworld.Train, i)
		if err != nil {
			return nil, 0, fmt.Errorf("act %s: %w", env.Name, err)
		}
		if slices.Contains(cfg.InitFamilies, f) {
			out = append(out, ps...)
		}
	}
	if len(out) == 0 {
		return nil, 0, fmt.Errorf("act %s: init_families: none of the %d training games is of %s", env.Name, len(games), strings.Join(cfg.InitFamilies, ", "))
	}
	return out, min(1, cfg.InitShare*float64(len(pairs))/float64(len(out))), nil
}

// byFamily evaluates m on the first n ID games split in two: those of
// cfg.InitFamilies (seen by π_θ0) and the others.
func (cfg Config) byFamily(m *model.Model, env *Env, dec Decoding, n int) (seen, unseen *Online, err error) {
	var in, out []int
	for i := range n {
		f, err := env.Family(textworld.Test, i)
		if err != nil {
			return nil, nil, fmt.Errorf("act %s: %w", env.Name, err)
		}
		if slices.Contains(cfg.InitFamilies, f) {
			in = append(in, i)
		} else {
			out = append(out, i)
		}
	}
	eval := func(games []int) (*Online, error) {
		if len(games) == 0 {
			return nil, nil
		}
		on, err := evaluateGames(m, env, dec, func(j int) (textworld.Env, error) { return env.New(textworld.Test, games[j]) },
			len(games), cfg.Collect.History, cfg.Collect.MaxAction)
		return &on, err
	}
	if seen, err = eval(in); err != nil {
		return nil, nil, err
	}
	unseen, err = eval(out)
	return seen, unseen, err
}

package act

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"arew/model"
	"arew/rl/run"
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
		f, err := env.Family(cfg.heldSplit(), i)
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
		on, err := evaluateGames(m, env, dec, func(j int) (textworld.Env, error) { return env.New(cfg.heldSplit(), games[j]) },
			len(games), cfg.Collect.History, cfg.Collect.MaxAction)
		return &on, err
	}
	if seen, err = eval(in); err != nil {
		return nil, nil, err
	}
	unseen, err = eval(out)
	return seen, unseen, err
}

// offlineByFamily splits next-action hits on the held-out pairs of games
// 0, 1, … of cfg.Split (games[j]: game j's pairs, hits in the same order) into
// the games of cfg.InitFamilies and the others: each side's share of
// hits, nil for a side without pairs.
func (cfg Config) offlineByFamily(env *Env, games [][]textworld.Pair, hits []bool) (seen, unseen *float64, err error) {
	var in, out []bool
	for j, ps := range games {
		f, err := env.Family(cfg.heldSplit(), j)
		if err != nil {
			return nil, nil, fmt.Errorf("act %s: %w", env.Name, err)
		}
		h := hits[:len(ps)]
		hits = hits[len(ps):]
		if slices.Contains(cfg.InitFamilies, f) {
			in = append(in, h...)
		} else {
			out = append(out, h...)
		}
	}
	share := func(h []bool) *float64 {
		if len(h) == 0 {
			return nil
		}
		x := hitShare(h)
		return &x
	}
	return share(in), share(out), nil
}

// familySplit is how each column of the paper's average splits by family:
// online ID success on the games of π_θ0's families and on the others
// (ALFWorld, WebShop), or offline next-action accuracy on the held-out
// states of those games (ScienceWorld).
var familySplit = map[string][2]func(RowResult) float64{
	"alfworld": {func(r RowResult) float64 { return success(r.IDSeen) }, func(r RowResult) float64 { return success(r.IDUnseen) }},
	"webshop":  {func(r RowResult) float64 { return success(r.IDSeen) }, func(r RowResult) float64 { return success(r.IDUnseen) }},
	"sciworld": {func(r RowResult) float64 { return ptr(r.OfflineSeen) }, func(r RowResult) float64 { return ptr(r.OfflineUnseen) }},
}

// familyTable fills Families, FamilyColumns and FamilyOrderings for the
// environments whose runs name InitFamilies: per environment a column of
// π_θ0's families and one of the others, and on the others the orderings
// ACT > prompting, IL w/ ACT ≥ IL + 2 and RL w/ ACT ≥ RL + 2, paired by
// seed as the table's (the paper does not split by family: no paper
// number), each where both rows were measured on some seed.
func (s *Summary) familyTable(cfg StudyConfig) {
	var cols []Column
	for _, rc := range cfg.Runs {
		split, ok := familySplit[rc.Env]
		if len(rc.InitFamilies) == 0 || !ok {
			continue
		}
		label := rc.Env
		for _, c := range Table1Columns {
			if c.Env == rc.Env && slices.Contains(averaged, c.Key) {
				label = c.Label
			}
		}
		cols = append(cols,
			Column{rc.Env + "-seen", label + ", π_θ0's families", rc.Env, split[0]},
			Column{rc.Env + "-unseen", label + ", other families", rc.Env, split[1]})
	}
	if len(cols) == 0 {
		return
	}
	for _, c := range cols {
		s.FamilyColumns = append(s.FamilyColumns, c.Label)
	}
	for _, row := range rows(cfg.Runs[0]) {
		s.Families = append(s.Families, s.tableRow(row, "", cols))
	}
	unseen := func(row string, ci int) []run.Num {
		for _, t := range s.Families {
			if t.Row == row {
				return t.Cells[ci].PerSeed
			}
		}
		return nil
	}
	claims := []struct {
		claim  string
		a, b   string
		margin float64
		strict bool
	}{
		{"ACT > prompting", RowACT, RowPrompting, 0, true},
		{"IL w/ ACT ≥ IL + 2", RowILwACT, RowIL, 2, false},
		{"RL w/ ACT ≥ RL + 2", RowRLwACT, RowRL, 2, false},
	}
	for ci := 1; ci < len(cols); ci += 2 {
		for _, c := range claims {
			a, b := unseen(c.a, ci), unseen(c.b, ci)
			if a == nil || b == nil {
				continue
			}
			s.FamilyOrderings = append(s.FamilyOrderings, diff(c.claim+" ("+cols[ci].Label+")", math.NaN(), c.margin, a, b, c.strict))
		}
	}
	s.FamilyOrderings = measured(s.FamilyOrderings) // runs made before the split have no pairs to compare
}

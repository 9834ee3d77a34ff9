package study

import (
	"arew/rl"
	"arew/rl/run"
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
)

// TestTable is the Markdown table of the final test evaluation, mean ± std
// over the complete runs of each arm, greedy and sampled, for the Reported
// measures: the study's headline numbers. Empty when no run has one.
func (s *Summary) TestTable() string {
	header := run.ReportedHeader("arm", "mode", "runs")
	var rows [][]string
	for _, name := range s.ArmOrder {
		for _, mode := range rl.BothModes {
			evals := s.evals(name, mode, func(r *RunSum) *run.Modes { return r.Test })
			if len(evals) == 0 {
				continue
			}
			rows = append(rows, append([]string{name, string(mode), strconv.Itoa(len(evals))}, meanStdCells(evals)...))
		}
	}
	return run.TableOr("", header, 2, rows)
}

// TestSeedTable is the final test success of every run, seed by seed, in
// each mode: the numbers behind TestTable's means.
func (s *Summary) TestSeedTable(seeds []uint64) string {
	header := seedColumns(seeds, "arm", "mode")
	var rows [][]string
	for _, name := range s.ArmOrder {
		for _, mode := range rl.BothModes {
			row := []string{name, string(mode)}
			any := false
			for _, x := range s.testSuccess(name, mode, seeds) {
				row, any = append(row, f3(run.Num(x))), any || !math.IsNaN(x)
			}
			if any {
				rows = append(rows, row)
			}
		}
	}
	return run.TableOr("", header, 2, rows)
}

func (s *Summary) run(arm string, seed uint64) *RunSum {
	a := s.Arms[arm]
	if a == nil {
		return nil
	}
	for i := range a.Runs {
		if a.Runs[i].Seed == seed {
			return &a.Runs[i]
		}
	}
	return nil
}

// Ranked is one arm's place under the selection rule.
type Ranked struct {
	Arm      string  `json:"arm"`
	Sampled  float64 `json:"sampled"` // mean final sampled success over the seeds
	Greedy   float64 `json:"greedy"`  // the same, greedy (NaN if not evaluated)
	Complete int     `json:"complete"`
}

// Ranking orders the arms by the selection rule every tuning sweep uses
// (docs/arew.md, "Protocol"), written before any sweep ran: an arm is
// ranked only when every seed's run is complete; higher mean final sampled
// success on the in-training split (val) first, then higher mean final
// greedy success, then the config's order. The first arm is the one
// selected. The test split is never read.
func (s *Summary) Ranking(seeds int) []Ranked { return s.rank(s.ArmOrder, seeds) }

// rank is Ranking over the named arms only.
func (s *Summary) rank(arms []string, seeds int) []Ranked {
	var out []Ranked
	for _, name := range arms {
		var sampled, greedy []float64
		complete := 0
		for _, r := range s.Arms[name].Runs {
			if r.Final == nil {
				continue
			}
			complete++
			if r.Final.Sampled != nil {
				sampled = append(sampled, float64(r.Final.Sampled.Success))
			}
			if r.Final.Greedy != nil {
				greedy = append(greedy, float64(r.Final.Greedy.Success))
			}
		}
		if complete < seeds || len(sampled) < seeds {
			continue
		}
		ms, _, _ := run.MeanStd(sampled)
		mg, _, _ := run.MeanStd(greedy)
		out = append(out, Ranked{Arm: name, Sampled: ms, Greedy: mg, Complete: complete})
	}
	order := map[string]int{}
	for i, n := range s.ArmOrder {
		order[n] = i
	}
	slices.SortStableFunc(out, func(a, b Ranked) int {
		if c := cmp.Compare(b.Sampled, a.Sampled); c != 0 {
			return c
		}
		if c := cmp.Compare(nanLow(b.Greedy), nanLow(a.Greedy)); c != 0 {
			return c
		}
		return cmp.Compare(order[a.Arm], order[b.Arm])
	})
	return out
}

func nanLow(x float64) float64 {
	if math.IsNaN(x) {
		return math.Inf(-1)
	}
	return x
}

// Families lists the arms' families in order of first appearance, each
// with its arms ("" is the family of arms that name none).
func (s *Summary) Families() (names []string, arms map[string][]string) {
	arms = map[string][]string{}
	for _, n := range s.ArmOrder {
		f := s.Arms[n].Family
		if _, ok := arms[f]; !ok {
			names = append(names, f)
		}
		arms[f] = append(arms[f], n)
	}
	return names, arms
}

// Selected is, per family, the arm the selection rule picks (none while a
// family has an arm not yet ranked).
func (s *Summary) Selected(seeds int) map[string]string {
	names, arms := s.Families()
	out := map[string]string{}
	for _, f := range names {
		if a := s.Adopted(arms[f], seeds); a != "" {
			out[f] = a
		}
	}
	return out
}

// Adopted is the adoption rule of docs/arew.md §7, written before the
// ladder ran: among the candidate arms (the ladder's turn-level rules),
// the one with the highest mean final in-training (validation) sampled
// success over all seeds, ties to greedy, then to the earlier candidate;
// "" while a candidate has a run missing. It reads no test number.
func (s *Summary) Adopted(candidates []string, seeds int) string {
	rk := s.rank(candidates, seeds)
	if len(rk) < len(candidates) || len(rk) == 0 {
		return ""
	}
	return rk[0].Arm
}

// RankingTable is the Markdown table of the ranking within each family,
// with the arms that are not ranked yet (a run missing) named below it.
func (s *Summary) RankingTable(seeds int) string {
	names, arms := s.Families()
	var rows [][]string
	ranked := map[string]bool{}
	for _, f := range names {
		for i, r := range s.rank(arms[f], seeds) {
			ranked[r.Arm] = true
			fam := f
			if fam == "" {
				fam = "all"
			}
			rows = append(rows, []string{fam, strconv.Itoa(i + 1), r.Arm, f3(run.Num(r.Sampled)), f3(run.Num(r.Greedy)), strconv.Itoa(r.Complete)})
		}
	}
	out := run.MarkdownTable([]string{"family", "rank", "arm", "sampled success", "greedy success", "runs"}, 3, rows)
	var missing []string
	for _, n := range s.ArmOrder {
		if !ranked[n] {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		out += fmt.Sprintf("\nNot ranked (a seed's run is not complete): %v\n", missing)
	}
	sel := s.Selected(seeds)
	for _, f := range names {
		fam := f
		if fam == "" {
			fam = "the sweep"
		}
		if a, ok := sel[f]; ok {
			out += fmt.Sprintf("\nSelected for %s: **%s**\n", fam, a)
		} else {
			out += fmt.Sprintf("\nSelected for %s: none yet (not every arm is ranked)\n", fam)
		}
	}
	return out
}

// PairedRow is one arm against the reference on the final test
// evaluation's success, seed by seed (Δ = arm − reference), and how many
// seeds reach the margin.
type PairedRow struct {
	Arm string
	run.Paired
	AtLeast int
}

// Paired compares every arm with ref, seed by seed, in mode (greedy or
// sampled) on the final test evaluation: the paired differences, their
// mean and std, and how many seeds reach margin.
func (s *Summary) Paired(ref string, mode rl.EvalMode, margin float64, seeds []uint64) []PairedRow {
	var out []PairedRow
	base := s.testSuccess(ref, mode, seeds)
	for _, name := range s.ArmOrder {
		if name == ref {
			continue
		}
		row := PairedRow{Arm: name, Paired: run.PairedOf(s.testSuccess(name, mode, seeds), base)}
		for _, d := range row.Deltas {
			if d >= margin-1e-12 {
				row.AtLeast++
			}
		}
		out = append(out, row)
	}
	return out
}

// testSuccess is arm's final test success in mode, seed by seed (NaN
// where a run has none).
func (s *Summary) testSuccess(arm string, mode rl.EvalMode, seeds []uint64) []float64 {
	out := make([]float64, len(seeds))
	for i, seed := range seeds {
		out[i] = math.NaN()
		if r := s.run(arm, seed); r != nil && r.Test != nil {
			if m := r.Test.Get(mode); m != nil {
				out[i] = float64(m.Success)
			}
		}
	}
	return out
}

// PairedTable is the Markdown table of Paired.
func (s *Summary) PairedTable(ref string, mode rl.EvalMode, margin float64, seeds []uint64) string {
	header := append(seedColumns(seeds, "arm − "+ref), "mean ± std", fmt.Sprintf("seeds with Δ ≥ %g", margin))
	var rows [][]string
	for _, r := range s.Paired(ref, mode, margin, seeds) {
		row := []string{r.Arm}
		for _, d := range r.Deltas {
			row = append(row, signed(d))
		}
		row = append(row, signed(r.Mean)+" ± "+f3(run.Num(r.Std)), fmt.Sprintf("%d of %d", r.AtLeast, r.Pairs))
		rows = append(rows, row)
	}
	return run.MarkdownTable(header, 1, rows)
}

// seedColumns is cols, then "seed <s>" for each of seeds.
func seedColumns(seeds []uint64, cols ...string) []string {
	for _, s := range seeds {
		cols = append(cols, "seed "+strconv.FormatUint(s, 10))
	}
	return cols
}

// signed writes x with three decimals and its sign, or – when not finite.
func signed(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "–"
	}
	return fmt.Sprintf("%+.3f", x)
}

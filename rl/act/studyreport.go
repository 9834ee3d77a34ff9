package act

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"

	"arew/rl/run"
)

// write writes summary.json, plots/ and report.md into dir.
func (s *Summary) write(dir string) error {
	plots, err := s.writePlots(filepath.Join(dir, "plots"))
	if err != nil {
		return err
	}
	s.Plots = plots
	if err := run.WriteJSON(filepath.Join(dir, "summary.json"), s); err != nil {
		return err
	}
	return run.WriteFile(filepath.Join(dir, "report.md"), []byte(s.Report()))
}

// num writes x with prec decimals, or – (run.Fixed).
func num(x run.Num, prec int) string { return run.Fixed(float64(x), prec) }

// String is "mean ± std" (the mean alone for one seed, – for none), then
// the paper's number in parentheses if the cell has one.
func (c Cell) String() string {
	paper := ""
	if c.Paper != nil {
		paper = fmt.Sprintf(" (%.1f)", *c.Paper)
	}
	switch {
	case math.IsNaN(float64(c.Mean)):
		return "–" + paper
	case math.IsNaN(float64(c.Std)):
		return num(c.Mean, 1) + paper
	}
	return num(c.Mean, 1) + " ± " + num(c.Std, 1) + paper
}

// cellText is c's String, – for no cell.
func cellText(c *Cell) string {
	if c == nil {
		return "–"
	}
	return c.String()
}

// cells is the row's name (and arm), then its cells.
func (t TableRow) cells(arm bool) []string {
	out := []string{t.Row}
	if arm {
		out = append(out, t.Arm)
	}
	for _, c := range t.Cells {
		out = append(out, c.String())
	}
	return out
}

// Report is report.md: the table (ours, mean ± std over the seeds, the
// paper's in parentheses), the failure-recovery counts, the ACT stage,
// the orderings and the plots.
func (s *Summary) Report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# ACT study %s\n\n", s.Name)
	fmt.Fprintf(&b, "Kind %s, seeds %v; the runs' times summed: %s (runs side by side, -jobs, overlap in wall time)", s.Kind, s.Seeds, time.Duration(s.Seconds*float64(time.Second)).Round(time.Second))
	if s.Expect != "" {
		fmt.Fprintf(&b, "; the preset's measured run time: %s", s.Expect)
	}
	b.WriteString(".\n\nEvery cell is in percent, mean ± std over the seeds")
	if s.Kind == KindTable1 {
		b.WriteString("; the paper's number (Qwen3-8B, docs/act.md §4) in parentheses, for the shape only")
	}
	fmt.Fprintf(&b, ". Online success and next-action accuracy are greedy, the actions decoded %s (docs/act.md §11); ScienceWorld is offline next-action accuracy on held-out expert states.", decoderWords(s.Decoder))
	switch s.Split {
	case "val":
		b.WriteString(" The held-out states and the ID games are the validation split's (split val, docs/act.md §25): these runs are for choosing, and read no test game.")
	case "mixed":
		b.WriteString(" The runs read different splits: some the validation split, some the test split.")
	}
	b.WriteString("\n\n")
	b.WriteString(s.mainTable())
	if len(s.Offline) > 0 {
		b.WriteString("\n## Offline measures\n\nGreedy next-action accuracy on held-out expert states and greedy choice accuracy on held-out critic examples, per environment (percent, mean ± std):\n\n")
		var orows [][]string
		for _, t := range s.Offline {
			orows = append(orows, t.cells(false))
		}
		b.WriteString(run.MarkdownTable(append([]string{"row"}, s.OfflineColumns...), 1, orows))
	}
	b.WriteString("\n## The ACT stage\n\nSampled accuracy of the choice during GRPO (first and last tenth of the updates), and the greedy held-out choice accuracy of π_θ0 and of the ACT model:\n\n")
	var cr [][]string
	for _, cv := range s.Curves {
		cr = append(cr, []string{cv.Group, fmt.Sprint(cv.Seed), fmt.Sprint(len(cv.Acc)), num(run.Num(tenth(cv.Acc, false)), 3),
			num(run.Num(tenth(cv.Acc, true)), 3), num(cv.Before, 3), num(cv.After, 3)})
	}
	b.WriteString(run.TableOr("None: no run of this study has an ACT stage.\n",
		[]string{"group", "seed", "updates", "sampled, first", "sampled, last", "held-out π_θ0", "held-out ACT"}, 2, cr))
	b.WriteString("\n## The paper's orderings\n\nPaired by seed: ours is the mean difference ± its standard error. An ordering holds when the mean clears its margin with the paper's sign and at least four seeds in five show that sign; a tie at zero (both rows 0) never counts. An ordering whose rows the study does not run is left out.\n\n")
	b.WriteString(orderingsTable(s.Orderings))
	if len(s.Families) > 0 {
		b.WriteString("\n## By π_θ0's task families\n\nπ_θ0 trained on some task families only (init_families): each column split into the games of those families and the others (ALFWorld and WebShop: online ID success; ScienceWorld: next-action accuracy on the held-out states of those games), percent, mean ± std:\n\n")
		var frows [][]string
		for _, t := range s.Families {
			frows = append(frows, t.cells(false))
		}
		b.WriteString(run.MarkdownTable(append([]string{"row"}, s.FamilyColumns...), 1, frows))
		b.WriteString("\nThe orderings on the other families, paired and read as above (the paper does not split by family):\n\n")
		b.WriteString(orderingsTable(s.FamilyOrderings))
	}
	if len(s.Plots) > 0 {
		b.WriteString("\n## Plots\n\n")
		for _, p := range s.Plots {
			fmt.Fprintf(&b, "![%s](%s)\n\n", p, p)
		}
	}
	b.WriteString("\nEach run's datasets, checkpoints and report.json are in its folder (<env>/seed-<s>/, or own/ and transfer/ for a transfer).\n")
	return b.String()
}

// orderingsTable is the orderings as a table: each claim, its mean ±
// standard error, the paper's difference, the per-seed differences and
// whether it holds.
func orderingsTable(os []Ordering) string {
	yes := map[bool]string{true: "yes", false: "no"}
	var or [][]string
	for _, o := range os {
		var per []string
		for _, d := range o.PerSeed {
			per = append(per, num(d, 1))
		}
		ours := num(o.Ours, 2)
		if !math.IsNaN(float64(o.SE)) {
			ours += " ± " + num(o.SE, 2)
		}
		or = append(or, []string{o.Claim, ours, num(o.Paper, 2), strings.Join(per, ", "), fmt.Sprintf("%d/%d", o.Seeds, o.Of), yes[o.MeanHolds], yes[o.Holds]})
	}
	return run.TableOr("None: no ordering has both of its rows in this study.\n",
		[]string{"claim", "ours (points)", "paper", "per seed (paired)", "seeds", "mean", "holds"}, 1, or)
}

// mainTable is the study's table: a row per row (and arm), its cells
// with the paper's numbers, and for table1 the average, the repeated
// failures and WebShop's mean reward.
func (s *Summary) mainTable() string {
	header := []string{"row"}
	if s.Kind == KindTransfer {
		header = append(header, "critic data")
	}
	header = append(header, s.Columns...)
	if s.Kind == KindTable1 {
		header = append(header, "average (ID, WebShop, SciWorld)", "repeated failures / ALFWorld ID episode (free decoding)", "WebShop mean reward")
	}
	var rows [][]string
	for _, t := range s.Table {
		r := t.cells(s.Kind == KindTransfer)
		if s.Kind == KindTable1 {
			r = append(r, cellText(t.Average), cellText(t.Repeated), cellText(t.WebShopReward))
		}
		rows = append(rows, r)
	}
	left := 1
	if s.Kind == KindTransfer {
		left = 2
	}
	return run.MarkdownTable(header, left, rows)
}

// tenth is the mean of the first (or last) tenth of xs, at least one.
func tenth(xs []float64, last bool) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	k := max(1, len(xs)/10)
	part := xs[:k]
	if last {
		part = xs[len(xs)-k:]
	}
	mean, _, _ := run.MeanStd(part)
	return mean
}

// decoderWords says how the actions were decoded, for the report.
func decoderWords(d string) string {
	switch d {
	case "trie":
		return "under the trie of the listed commands"
	case "grammar":
		return "under the command grammar"
	case "free":
		return "free"
	}
	return "under several decoders (" + d + ")"
}

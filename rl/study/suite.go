package study

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"arew/rl"
	"arew/rl/run"
)

// SuiteReportFile is a suite's report: one row per setting.
const SuiteReportFile = "report.md"

// RunSuite runs the studies of a suite's runnable settings (Ready) one
// after another, each into <dir>/<study>/: a study whose folder holds its
// study.json is resumed (its complete runs kept; Resume), every other one
// is run (Run). A setting that is not runnable is skipped, its reason
// printed first and kept in the report; a suite with no runnable setting
// runs nothing and returns its Ready error. After each study,
// <dir>/report.md is rewritten with the rows of the studies done so far.
func RunSuite(ctx context.Context, s Suite, dir string, out io.Writer) ([]*Summary, error) {
	if out == nil {
		out = io.Discard
	}
	runnable, err := s.Runnable()
	if err != nil {
		return nil, run.InputErr(err)
	}
	for _, set := range s.Settings {
		if err := set.Ready(); err != nil {
			fmt.Fprintf(out, "%s: not runnable, skipped: %v\n", s.Name, err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var sums []*Summary
	for _, set := range runnable {
		c := s.Study(set)
		sub := filepath.Join(dir, c.Name)
		var sum *Summary
		if _, statErr := os.Stat(filepath.Join(sub, run.SweepFile)); statErr == nil {
			sum, err = Resume(ctx, c, sub, out)
		} else {
			sum, err = Run(ctx, c, sub, out)
		}
		if sum != nil {
			sums = append(sums, sum)
			if werr := run.WriteFile(filepath.Join(dir, SuiteReportFile), []byte(s.Report(sums))); werr != nil && err == nil {
				err = werr
			}
		}
		if err != nil {
			return sums, fmt.Errorf("suite %s: %s: %w", s.Name, c.Name, err)
		}
	}
	return sums, nil
}

// Runnable are the suite's settings that can run (Ready), in order; with
// none, the error is the suite's Ready error, naming what each misses.
func (s Suite) Runnable() ([]Setting, error) {
	var out []Setting
	for _, set := range s.Settings {
		if set.Ready() == nil {
			out = append(out, set)
		}
	}
	if len(out) == 0 {
		return nil, s.Ready()
	}
	return out, nil
}

// Report is the suite's table in the paper's layout (docs/arew.md §5): per
// setting, the published numbers beside the final test sampled success of
// each arm (mean ± std over seeds, and how many), the scripted baselines
// on the same instances, and whether AREW reproduces: arm "arew"'s mean
// above the reference's (the first arm) by more than the larger of the two
// stds (§8 step 5). A setting's finer-rule arms get a row of their own in
// the place of "arew"; other arms (a direction control) are columns that
// are not judged. A setting that is not runnable (Ready) says so in its
// row, and why below the table; a setting whose task has counts of its own
// (telecom's tool errors) gets their final table below it.
func (s Suite) Report(sums []*Summary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\nFinal test evaluation, sampled success × 100, mean ± std (runs) over seeds (greedy: each study's report.md); "+
		"the paper's numbers (outcome reward × 100, a 7B model; docs/arew.md §5) beside, for shape.\n\n", s.Name)
	var arms []string
	for _, a := range s.Study(s.Settings[0]).Arms {
		arms = append(arms, a.Name)
	}
	paper := arms[:min(len(arms), len(s.Settings[0].Published))]
	header := append([]string{"setting", "paper: " + strings.Join(paper, " / ")}, arms...)
	header = append(header, "best constant", "scripted random", "scripted strong", "reproduces")
	var rows [][]string
	var extras []string // the settings' own counts (ExtraTestTable)
	for _, set := range s.Settings {
		var sum *Summary
		for _, x := range sums {
			if x.Name == s.Study(set).Name {
				sum = x
			}
		}
		if sum == nil && set.Ready() != nil {
			rows = append(rows, append([]string{set.Name, published(set.Published)}, slices.Repeat([]string{"not runnable"}, len(header)-2)...))
			continue
		}
		rows = append(rows, suiteRow(set.Name, published(set.Published), sum, arms, "arew", len(header)))
		for _, f := range set.Finer {
			alt := append([]string{arms[0]}, slices.Repeat([]string{""}, len(arms)-2)...)
			rows = append(rows, suiteRow(set.Name+", "+f.Name+" as arew", "", sum, append(alt, f.Name), f.Name, len(header)))
		}
		if sum == nil {
			continue
		}
		if extra := sum.ExtraTestTable(); extra != "" {
			extras = append(extras, "### "+set.Name+"\n\n"+extra)
		}
	}
	b.WriteString(run.MarkdownTable(header, 2, rows))
	var missing []string
	for _, set := range s.Settings {
		if err := set.Ready(); err != nil {
			missing = append(missing, "- "+err.Error())
		}
	}
	if len(missing) > 0 {
		b.WriteString("\nNot runnable yet (docs/arew.md §8):\n\n" + strings.Join(missing, "\n") + "\n")
	}
	if len(extras) > 0 {
		b.WriteString("\n## The tasks' own counts\n\nFinal test evaluation, mean ± std over seeds (runs).\n\n" + strings.Join(extras, "\n"))
	}
	return b.String()
}

// suiteRow is one row of Report: label, the paper's cell, then each arm
// of arms ("" for a blank cell), the baselines and the verdict on arm
// judged against the first; "not run" without a summary.
func suiteRow(label, paper string, sum *Summary, arms []string, judged string, width int) []string {
	row := []string{label, paper}
	if sum == nil {
		return append(row, slices.Repeat([]string{"not run"}, width-2)...)
	}
	stats := map[string][2]float64{}
	for _, a := range arms {
		if a == "" {
			row = append(row, "")
			continue
		}
		mean, std, n := run.MeanStd(sum.testSuccess(a, rl.ModeSampled, seedsOf(sum, a)))
		stats[a] = [2]float64{mean, std}
		row = append(row, fmt.Sprintf("%s ± %s (%d)", pct(mean), pct(std), n))
	}
	row = append(row, baseline(sum, "best constant"), baseline(sum, "scripted random"), baseline(sum, "scripted strong"))
	ref, arew := stats[arms[0]], stats[judged]
	return append(row, map[bool]string{true: "yes", false: "no"}[arew[0]-ref[0] > max(arew[1], ref[1])])
}

// published formats the paper's PPO / AS / AS+BT row.
func published(p []float64) string {
	if len(p) == 0 {
		return "–"
	}
	var cells []string
	for _, x := range p {
		cells = append(cells, fmt.Sprintf("%.2f", x))
	}
	return strings.Join(cells, " / ")
}

// seedsOf are the seeds of the arm's runs.
func seedsOf(s *Summary, arm string) []uint64 {
	var out []uint64
	if a := s.Arms[arm]; a != nil {
		for _, r := range a.Runs {
			out = append(out, r.Seed)
		}
	}
	return out
}

// baseline is the success of the test baseline whose name starts with
// prefix ("–" when there is none).
func baseline(s *Summary, prefix string) string {
	for _, b := range s.TestBaselines {
		if strings.HasPrefix(b.Name, prefix) {
			return pct(float64(b.Measures.Success))
		}
	}
	return "–"
}

// pct is a success rate × 100 to one decimal, as the paper reports it
// ("–" when it is not a number: the std of one seed).
func pct(x float64) string { return run.Fixed(100*x, 1) }

package study

import (
	"arew/rl/run"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A suite runs its studies into their folders and writes one row per
// setting; run again, it resumes them (their complete runs kept); a
// setting that is not ready is skipped and reported.
func TestRunSuite(t *testing.T) {
	vanilla := Arm{Name: "vanilla-tuned"}
	ready := func(name string) Setting {
		return Setting{Name: name, Base: "flodial-easy-locked", Vanilla: &vanilla, Lambda: 1, Published: []float64{1, 2}}
	}
	suite := Suite{Name: "tiny", Settings: []Setting{ready("a")}, Study: func(s Setting) Config {
		c := small()
		c.Name = "tiny-" + s.Name
		c.Arms[0].Name = "vanilla-tuned"
		c.Updates, c.Eval.Test = 1, 4
		return c
	}}
	dir := t.TempDir()
	sums, err := RunSuite(t.Context(), suite, dir, nil)
	require.NoError(t, err)
	require.Len(t, sums, 1)
	for _, s := range sums {
		assert.Equal(t, "complete", s.Status)
		assert.FileExists(t, filepath.Join(dir, s.Name, SummaryFile))
	}
	rep, err := os.ReadFile(filepath.Join(dir, SuiteReportFile))
	require.NoError(t, err)
	assert.Contains(t, string(rep), "| a       | 1.00 / 2.00")
	assert.Contains(t, string(rep), "(1)", "one seed per arm")
	assert.Regexp(t, `\| +(yes|no) \|\n$`, string(rep))
	two := suite
	two.Settings = append(two.Settings, ready("b"))
	assert.Regexp(t, `\| +(yes|no) \|\n\| b +\| 1.00 / 2.00 +\| +not run \|`, two.Report(sums), "a setting not run yet")

	again, err := RunSuite(t.Context(), suite, dir, nil)
	require.NoError(t, err)
	want, err := json.Marshal(sums)
	require.NoError(t, err)
	have, err := json.Marshal(again)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(have), "resumed: the same complete runs")

	// A setting that is not runnable is skipped and reported; a suite of
	// none runs nothing.
	suite.Settings = append(suite.Settings, Setting{Name: "c", Pending: "not built"})
	var log strings.Builder
	partial, err := RunSuite(t.Context(), suite, dir, &log)
	require.NoError(t, err)
	require.Len(t, partial, 1)
	assert.Contains(t, log.String(), "tiny: not runnable, skipped: c: no base: not built")
	rep, err = os.ReadFile(filepath.Join(dir, SuiteReportFile))
	require.NoError(t, err)
	assert.Regexp(t, `\| c +\| – +\| +not runnable \|`, string(rep))
	assert.Contains(t, string(rep), "Not runnable yet (docs/arew.md §8):\n\n- c: no base: not built; ")

	none := Suite{Name: "none", Settings: []Setting{{Name: "c", Pending: "not built"}}, Study: suite.Study}
	other := t.TempDir()
	_, err = RunSuite(t.Context(), none, filepath.Join(other, "x"), nil)
	assert.ErrorContains(t, err, "c: no base: not built")
	assert.NoDirExists(t, filepath.Join(other, "x"))
}

// The verdict judges arm "arew" against the reference wherever the arms
// stand, so a direction control after it is a column, not the verdict; a
// task's own counts get a table below.
func TestSuiteReportJudgesArew(t *testing.T) {
	sum := &Summary{Name: "tel-a", Arms: map[string]*ArmSum{}, ArmOrder: []string{"vanilla-tuned", "arew", "random"}}
	for arm, success := range map[string][]float64{"vanilla-tuned": {0.10, 0.12}, "arew": {0.40, 0.44}, "random": {0.05, 0.07}} {
		a := &ArmSum{}
		for i, x := range success {
			m := &run.Measures{Success: run.Num(x), Extra: map[string]run.Num{"tool_errors": run.Num(10 * x)}}
			a.Runs = append(a.Runs, RunSum{Seed: uint64(i + 1), Status: "complete", Test: &run.Modes{Sampled: m, Greedy: m}})
		}
		sum.Arms[arm] = a
	}
	vanilla := Arm{Name: "vanilla-tuned"}
	suite := Suite{Name: "tel", Settings: []Setting{{Name: "a", Base: "flodial-easy-locked", Vanilla: &vanilla, Lambda: 1, Published: []float64{10, 25}}},
		Study: func(s Setting) Config {
			return Config{Name: "tel-" + s.Name, Arms: []Arm{{Name: "vanilla-tuned"}, {Name: "arew"}, {Name: "random"}}}
		}}
	rep := suite.Report([]*Summary{sum})
	assert.Contains(t, rep, "paper: vanilla-tuned / arew |", "the paper's cell names the arms it has numbers for")
	assert.Regexp(t, `\| a +\| 10.00 / 25.00 +\| +11.0 ± 1.4 \(2\) \| +42.0 ± 2.8 \(2\) \| +6.0 ± 1.4 \(2\) \|.*\| +yes \|`, rep)
	assert.Contains(t, rep, "## The tasks' own counts")
	assert.Contains(t, rep, "### a\n")
	sum.Arms["arew"], sum.Arms["random"] = sum.Arms["random"], sum.Arms["arew"]
	assert.Regexp(t, `\| +no \|`, suite.Report([]*Summary{sum}), "the control's numbers under arew's name fail")
}

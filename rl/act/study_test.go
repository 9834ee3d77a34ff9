package act

import (
	"arew/rl/run"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tinyStudy is a one-seed table study at unit-test size: ALFWorld and
// WebShop pipelines of tinyConfig's size with four rows each.
func tinyStudy(t *testing.T) StudyConfig {
	var runs []Config
	for _, env := range []string{"alfworld", "webshop"} {
		c := tinyConfig(t)
		c.Env, c.Games, c.Episodes, c.OODEpisodes = env, 2, 1, 0
		c.Rows = []string{RowACT, RowIL, RowILwACT, RowRL}
		runs = append(runs, c)
	}
	return StudyConfig{Name: "tiny", Kind: KindTable1, Seeds: []uint64{1}, Runs: runs}
}

// TestTinyStudyRunsAndStops is the quick version of TestSmokeStudies and
// TestStudyStopsInsideARun (study_long_test.go, -tags long): a complete
// tiny study writes its outputs and summarises back to the same table,
// one cut inside its second run ends with run.ErrInterrupted, keeping
// the first, and its resume keeps the first and gives the same table.
func TestTinyStudyRunsAndStops(t *testing.T) {
	cfg := tinyStudy(t)
	dir := t.TempDir()
	sum, err := RunStudy(context.Background(), cfg, dir, testWriter{t})
	require.NoError(t, err)
	assert.Len(t, sum.Table, 4)
	for _, f := range []string{"summary.json", "report.md", "study.json", "plots/act-stage.svg", "plots/table.svg",
		"alfworld/seed-1/report.json", "webshop/seed-1/report.json"} {
		assert.FileExists(t, filepath.Join(dir, f))
	}
	again, err := Summarize(dir)
	require.NoError(t, err)
	want, err := json.Marshal(sum.Table) // NaN cells compare as null
	require.NoError(t, err)
	got, err := json.Marshal(again.Table)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(got), "rebuilt from the runs' report.json")

	first := cfg
	first.Runs = cfg.Runs[:1]
	const plenty = 1 << 30
	left := plenty
	_, err = RunStudy(endsAfter{context.Background(), &left}, first, t.TempDir(), testWriter{t})
	require.NoError(t, err)
	left = plenty - left + 5 // the first run's checks and the study's, then 5 into the second run
	dir = t.TempDir()
	_, err = RunStudy(endsAfter{context.Background(), &left}, cfg, dir, testWriter{t})
	assert.ErrorIs(t, err, run.ErrInterrupted)
	assert.FileExists(t, filepath.Join(dir, "alfworld/seed-1/report.json"), "the finished run is kept")
	assert.NoFileExists(t, filepath.Join(dir, "webshop/seed-1/report.json"), "the cut run is not")

	kept, err := os.ReadFile(filepath.Join(dir, "alfworld/seed-1/report.json"))
	require.NoError(t, err)
	var log bytes.Buffer
	resumed, err := ResumeStudy(context.Background(), cfg, dir, &log)
	require.NoError(t, err)
	assert.Contains(t, log.String(), "alfworld seed 1: complete in the previous attempt, kept")
	again, err = Summarize(dir) // the resumed study's files, read back
	require.NoError(t, err)
	for _, s := range []*Summary{resumed, again} {
		got, err := json.Marshal(s.Table)
		require.NoError(t, err)
		assert.JSONEq(t, string(want), string(got), "resumed = uninterrupted")
	}
	after, err := os.ReadFile(filepath.Join(dir, "alfworld/seed-1/report.json"))
	require.NoError(t, err)
	assert.Equal(t, kept, after, "a kept run is not redone")
	other := cfg
	other.Seeds = []uint64{2}
	_, err = ResumeStudy(context.Background(), other, dir, nil)
	var input *run.InputError
	assert.ErrorAs(t, err, &input, "a different config")
}

func TestStudyConfigRejectsBadInput(t *testing.T) {
	good, err := StudyPreset("act-smoke")
	require.NoError(t, err)
	_, err = StudyPreset("nope")
	assert.ErrorContains(t, err, "act-smoke, act-table1")
	for name, mutate := range map[string]func(*StudyConfig){
		"no name":     func(s *StudyConfig) { s.Name = "" },
		"slash":       func(s *StudyConfig) { s.Name = "a/b" },
		"no seeds":    func(s *StudyConfig) { s.Seeds = nil },
		"repeat seed": func(s *StudyConfig) { s.Seeds = []uint64{3, 3} },
		"kind":        func(s *StudyConfig) { s.Kind = "other" },
		"env twice":   func(s *StudyConfig) { s.Runs = append(s.Runs, s.Runs[0]) },
		"bad run":     func(s *StudyConfig) { s.Runs[0].Games = 0 },
		"no source":   func(s *StudyConfig) { s.Kind = KindTransfer },
	} {
		s := good
		s.Runs = append([]Config(nil), good.Runs...)
		mutate(&s)
		assert.Error(t, s.Validate(), name)
	}
	for _, n := range StudyPresetNames() {
		s, err := StudyPreset(n)
		require.NoError(t, err)
		assert.NoError(t, s.Validate(), n)
	}
}

// TestSummaryOfKnownRuns: the table, the average and the orderings from
// hand-made reports.
func TestSummaryOfKnownRuns(t *testing.T) {
	rep := func(il, ilact float64) *Report {
		a, b := il, ilact
		return &Report{Rows: []RowResult{
			{Row: RowIL, ID: &Online{}, OOD: &Online{}, Offline: &a},
			{Row: RowILwACT, ID: &Online{}, OOD: &Online{}, Offline: &b},
		}}
	}
	cfg := SmokeStudy()
	for i := range cfg.Runs {
		cfg.Runs[i].Rows = []string{RowIL, RowILwACT}
	}
	s := &Summary{Seeds: cfg.Seeds}
	for _, env := range []string{"alfworld", "webshop", "sciworld"} {
		s.add(env, rep(0.3, 0.6))
		s.add(env, rep(0.5, 0.4))
	}
	s.finish(cfg)
	require.Len(t, s.Table, 2)
	sci := s.Table[0].Cells[3]
	assert.InDelta(t, 40, float64(sci.Mean), 1e-9, "ScienceWorld: offline accuracy in percent")
	assert.InDelta(t, 42.43, float64(s.Table[0].Cells[3].Std)*3, 0.1, "sample std √2·10")
	// Average per seed: (0 + 0 + 30)/3 = 10 and (0 + 0 + 50)/3 for IL.
	assert.InDelta(t, 40.0/3, float64(s.Table[0].Average.Mean), 1e-9)
	o := s.Orderings[0]
	assert.InDelta(t, (60-30+40-50)/3.0/2, float64(o.Ours), 1e-9)
	assert.Equal(t, 1, o.Seeds)
	assert.True(t, o.MeanHolds, "a mean of 3.3 clears the margin of 2")
	assert.False(t, o.Holds, "and one seed in two is not four in five")
	assert.InDelta(t, 5.07, float64(o.Paper), 1e-9)
	assert.Contains(t, s.Report(), "| il ")
}

// TestReportWithoutOrderings: a study that runs no ordering's pair of
// rows (a tuning grid's IL w/ ACT and ACT rows alone) says so in place of
// an orderings table with no rows, and one without an ACT stage (rows
// prompting and IL) says so in place of an empty ACT-stage table.
func TestReportWithoutOrderings(t *testing.T) {
	acc := 0.5
	cfg := SmokeStudy()
	for i := range cfg.Runs {
		cfg.Runs[i].Rows = []string{RowACT, RowILwACT}
	}
	s := &Summary{Seeds: cfg.Seeds}
	for _, env := range []string{"alfworld", "webshop", "sciworld"} {
		s.add(env, &Report{Rows: []RowResult{{Row: RowACT, ID: &Online{}, OOD: &Online{}, Offline: &acc},
			{Row: RowILwACT, ID: &Online{}, OOD: &Online{}, Offline: &acc}}})
	}
	s.finish(cfg)
	require.Empty(t, s.Orderings)
	assert.Contains(t, s.Report(), "None: no ordering has both of its rows in this study.")
	assert.NotContains(t, s.Report(), "| claim |")

	noStage := &Summary{Name: "x", Kind: KindTable1, Seeds: []uint64{1}}
	noStage.add("alfworld", &Report{Rows: []RowResult{{Row: RowIL, ID: &Online{}, Offline: &acc}}})
	assert.Contains(t, noStage.Report(), "None: no run of this study has an ACT stage.")
	assert.NotContains(t, noStage.Report(), "| group |")
}

// TestCommittedSummariesStillRead: the committed ACT studies
// (docs/results/act-*, made by the presets, too slow to remake here)
// decode into Summary field for field and render a report, so their
// meaning outlives changes to the summary and report code
// (TestCommittedStudiesResume resumes them).
func TestCommittedSummariesStillRead(t *testing.T) {
	for _, name := range []string{"act-table1", "act-transfer", "act-alfworld"} {
		data, err := os.ReadFile(filepath.Join(committedResults, name, "summary.json"))
		require.NoError(t, err)
		var s Summary
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		require.NoError(t, dec.Decode(&s), name)
		assert.Equal(t, name, s.Name)
		assert.NotEmpty(t, s.Table, name)
		assert.Contains(t, s.Report(), "# ACT study "+name)
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }

// TestSummarySaysWhichSplit: a study whose runs all read the validation
// split says so in summary.json and report.md; one that mixes splits says
// that; a test-split study has no split field, as before it existed.
func TestSummarySaysWhichSplit(t *testing.T) {
	acc := 0.5
	rep := func(split string) *Report {
		r := &Report{Rows: []RowResult{{Row: RowIL, ID: &Online{}, Offline: &acc}}}
		r.Config.Split = split
		return r
	}
	for _, c := range []struct {
		splits []string
		want   string
		says   string
	}{{[]string{"val", "val"}, "val", "validation split's"}, {[]string{"val", ""}, "mixed", "different splits"},
		{[]string{"", "test"}, "", "ScienceWorld is offline"}} {
		s := &Summary{Name: "x", Kind: KindTable1, Seeds: []uint64{1}}
		for i, sp := range c.splits {
			s.add([]string{"alfworld", "webshop"}[i], rep(sp))
		}
		assert.Equal(t, c.want, s.Split, c.splits)
		assert.Contains(t, s.Report(), c.says, c.splits)
		if c.want == "" {
			assert.NotContains(t, s.Report(), "split val")
			assert.NotContains(t, s.Report(), "different splits")
		}
	}
}

package study

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/rl/run"
)

// Every AREW study committed under docs/results still decodes, validates
// and matches its folder's study.json as a resume checks it
// (run.Sweep.Open), so -resume accepts it. (ACT's studies have a kind.)
func TestCommittedStudiesResume(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(committedResults, "*", run.SweepFile))
	require.NoError(t, err)
	n := 0
	for _, path := range paths {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		var kind struct{ Kind string }
		require.NoError(t, json.Unmarshal(data, &kind))
		if kind.Kind != "" {
			continue
		}
		n++
		var c Config
		if !assert.NoError(t, DecodeConfig(data, &c), path) || !assert.NoError(t, c.Validate(), path) {
			continue
		}
		sw := &run.Sweep{Kind: "study", Dir: filepath.Dir(path), Config: c}
		assert.NoError(t, sw.Open(true), path)
	}
	assert.GreaterOrEqual(t, n, 10, "the committed studies")
}

// The report code still renders what the committed AREW studies' reports
// hold: every report.md contains the tables its summary.json gives now
// (the threshold table aside, whose older reports are not aligned), and
// the default study's plots, drawn again from its summary and its runs'
// metrics in a copy of its folder, are its committed SVGs byte for byte.
func TestCommittedReportsRebuild(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(committedResults, "*", SummaryFile))
	require.NoError(t, err)
	n := 0
	for _, path := range paths {
		dir := filepath.Dir(path)
		var c Config
		data, err := os.ReadFile(filepath.Join(dir, run.SweepFile))
		if err != nil || DecodeConfig(data, &c) != nil {
			continue // a base's or a capability probe's folder, or an ACT study
		}
		n++
		var s Summary
		require.NoError(t, run.ReadJSON(path, run.MaxSummaryBytes, &s))
		report, err := os.ReadFile(filepath.Join(dir, ReportFile))
		require.NoError(t, err)
		tables := []string{s.Table(), s.TestTable(), s.TestSeedTable(c.Seeds), s.BaselineTable(), pairedSections(c, &s)}
		if c.Tuning {
			tables = append(tables, s.RankingTable(len(c.Seeds)))
		}
		for _, table := range tables {
			assert.Contains(t, string(report), table, dir)
		}
	}
	assert.GreaterOrEqual(t, n, 10, "the committed studies")

	src := filepath.Join(committedResults, "default")
	dir := filepath.Join(t.TempDir(), "default")
	require.NoError(t, os.CopyFS(dir, os.DirFS(src)))
	require.NoError(t, os.RemoveAll(filepath.Join(dir, PlotsDir)))
	var s Summary
	require.NoError(t, run.ReadJSON(filepath.Join(dir, SummaryFile), run.MaxSummaryBytes, &s))
	plots, err := writePlots(&s, filepath.Join(dir, PlotsDir))
	require.NoError(t, err)
	assert.Len(t, plots, 8)
	for _, p := range plots {
		want, err := os.ReadFile(filepath.Join(src, p))
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(dir, p))
		require.NoError(t, err)
		assert.True(t, bytes.Equal(want, got), "%s is not as committed", p)
	}
}

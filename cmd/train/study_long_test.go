//go:build long

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	arewrun "arew/rl/run"
	"arew/rl/study"
)

func TestStudyModeRunsThePreset(t *testing.T) {
	out := t.TempDir()
	stdout := runOK(t, "-study", "smoke", "-out", out, "-name", "s")
	dir := filepath.Join(out, "s")
	for _, f := range []string{study.SummaryFile, study.ReportFile, "plots/success.svg", "arew/seed-2/metrics.jsonl"} {
		assert.FileExists(t, filepath.Join(dir, f))
	}
	assert.Contains(t, stdout, "== study s: complete")
	assert.Regexp(t, `\| arew-bt +\| final +\| sampled +\| +2 \|`, stdout)
	assert.Regexp(t, `\| scripted strong +\|`, stdout)
	assert.Contains(t, stdout, filepath.Join(dir, "plots", "eval.svg"))
	assert.Contains(t, stdout, filepath.Join(dir, study.ReportFile))

	// The study's base as -init: no base is built, the runs start from it.
	runOK(t, "-study", "smoke", "-out", out, "-name", "again", "-init", filepath.Join(dir, study.BaseFile))
	assert.NoFileExists(t, filepath.Join(out, "again", study.BaseFile))
	assert.Equal(t, readArms(t, filepath.Join(dir, study.SummaryFile)), readArms(t, filepath.Join(out, "again", study.SummaryFile)),
		"the same base gives the same runs")

	// The study's own study.json repeats it; a small file varies it.
	runOK(t, "-study", "smoke", "-out", out, "-name", "repeat", "-study-config", filepath.Join(dir, arewrun.SweepFile))
	assert.Equal(t, readArms(t, filepath.Join(dir, study.SummaryFile)), readArms(t, filepath.Join(out, "repeat", study.SummaryFile)))
	vary := filepath.Join(out, "vary.json")
	require.NoError(t, os.WriteFile(vary, []byte(`{"seeds": [5], "updates": 2}`), 0o644))
	runOK(t, "-study", "smoke", "-out", out, "-name", "varied", "-study-config", vary)
	var s study.Summary
	require.NoError(t, json.Unmarshal(readBytes(t, filepath.Join(out, "varied", study.SummaryFile)), &s))
	require.Len(t, s.Arms["arew"].Runs, 1)
	assert.Equal(t, uint64(5), s.Arms["arew"].Runs[0].Seed)
	assert.Equal(t, 2, s.Updates)

	// -resume on a complete study keeps every run.
	stdout = runOK(t, "-resume", dir)
	assert.Contains(t, stdout, "arew-bt seed 2: complete in the previous attempt, kept")

	// An existing study folder needs -force.
	var so, se bytes.Buffer
	assert.Equal(t, exitUsage, run(context.Background(), []string{"-study", "smoke", "-out", out, "-name", "s"}, &so, &se, nil))
	assert.Contains(t, se.String(), "-force")
}

// readArms is the "arms" object of a summary.json, as raw JSON.
func readArms(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var s struct {
		Arms json.RawMessage `json:"arms"`
	}
	require.NoError(t, json.Unmarshal(data, &s))
	return string(s.Arms)
}

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

	"arew/rl/study"
)

func TestStudyModeRunsThePreset(t *testing.T) {
	out := t.TempDir()
	stdout := runOK(t, "-study", "smoke", "-out", out, "-name", "s")
	dir := filepath.Join(out, "s")
	for _, f := range []string{study.SummaryFile, study.ReportFile, "plots/success.png", "arew/seed-2/metrics.jsonl"} {
		assert.FileExists(t, filepath.Join(dir, f))
	}
	assert.Contains(t, stdout, "== study s: complete")
	assert.Regexp(t, `\| arew-bt +\| final +\| sampled +\| +2 \|`, stdout)
	assert.Regexp(t, `\| scripted strong +\|`, stdout)
	assert.Contains(t, stdout, filepath.Join(dir, "plots", "eval.png"))
	assert.Contains(t, stdout, filepath.Join(dir, study.ReportFile))

	// The study's base as -init: no base is built, the runs start from it.
	runOK(t, "-study", "smoke", "-out", out, "-name", "again", "-init", filepath.Join(dir, study.BaseFile))
	assert.NoFileExists(t, filepath.Join(out, "again", study.BaseFile))
	assert.Equal(t, readArms(t, filepath.Join(dir, study.SummaryFile)), readArms(t, filepath.Join(out, "again", study.SummaryFile)),
		"the same base gives the same runs")

	// The study's own study.json repeats it; a small file varies it.
	runOK(t, "-study", "smoke", "-out", out, "-name", "repeat", "-study-config", filepath.Join(dir, study.StudyFile))
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

func TestBadStudyFlagsAreUsageErrors(t *testing.T) {
	badJSON := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(badJSON, []byte(`{"updates": 0}`), 0o644))
	for _, args := range [][]string{
		{"-study", "no-such-preset"},
		{"-study", "smoke", "-updates", "3"},
		{"-study", "smoke", "-config", "x.json"},
		{"-study", "smoke", "-name", "a/b"},
		{"-study", "smoke", "-init", filepath.Join(t.TempDir(), "missing.safetensors")},
		{"-study", "smoke", "-study-config", filepath.Join(t.TempDir(), "missing.json")},
		{"-study", "smoke", "-study-config", badJSON},
		{"-study-config", badJSON},
		{"-resume"},
		{"-study", "smoke", "-resume"},
		{"-study", "smoke", "-resume", "-force"},
		{"-build-base", "no-such-base"},
		{"-build-base", "flodial-easy-locked", "-study", "smoke"},
		{"-build-base", "flodial-easy-locked", "-resume"},
		{"-build-base", "flodial-easy-locked", "-updates", "3"},
	} {
		out := t.TempDir()
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), append([]string{"-out", out}, args...), &stdout, &stderr, nil)
		assert.Equal(t, exitUsage, code, "%v: %s", args, stderr.String())
		assert.Contains(t, stderr.String(), "train:", "%v", args)
		entries, err := os.ReadDir(out)
		require.NoError(t, err)
		assert.Empty(t, entries, "%v: nothing may be written", args)
	}
}

func readBytes(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return data
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

func TestInterruptedStudyExits130WithASummary(t *testing.T) {
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	assert.Equal(t, exitInterrupted, run(ctx, []string{"-study", "smoke", "-out", out}, &stdout, &stderr, nil))
	var s study.Summary
	data, err := os.ReadFile(filepath.Join(out, "smoke", study.SummaryFile))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &s))
	assert.Equal(t, "interrupted", s.Status)
	assert.FileExists(t, filepath.Join(out, "smoke", study.ReportFile))
	assert.Contains(t, stdout.String(), "continue with -resume "+filepath.Join(out, "smoke"))

	// -resume with the study's folder alone finishes it: its study.json
	// is the whole config.
	runOK(t, "-resume", filepath.Join(out, "smoke"))
	data, err = os.ReadFile(filepath.Join(out, "smoke", study.SummaryFile))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &s))
	assert.Equal(t, "complete", s.Status)
}

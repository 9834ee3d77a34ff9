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

// TestStudyModeTakesAStudyConfigAndRefusesAnExistingFolder is the quick
// part of TestStudyModeRunsThePreset (study_long_test.go, -tags long):
// with the context already ended, -study-config's seeds and updates reach
// the study's study.json and its first line, and the folder it leaves
// needs -force.
func TestStudyModeTakesAStudyConfigAndRefusesAnExistingFolder(t *testing.T) {
	out := t.TempDir()
	vary := filepath.Join(out, "vary.json")
	require.NoError(t, os.WriteFile(vary, []byte(`{"seeds": [5], "updates": 2}`), 0o644))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"-study", "smoke", "-out", out, "-name", "varied", "-study-config", vary}, &stdout, &stderr, nil)
	assert.Equal(t, exitInterrupted, code, "stderr: %s", stderr.String())
	assert.Contains(t, stdout.String(), "== study varied")
	assert.Contains(t, stdout.String(), "× 1 seeds × 2 updates")
	var c study.Config
	require.NoError(t, json.Unmarshal(readBytes(t, filepath.Join(out, "varied", arewrun.SweepFile)), &c))
	assert.Equal(t, []uint64{5}, c.Seeds)
	assert.Equal(t, 2, c.Updates)

	stderr.Reset()
	code = run(context.Background(), []string{"-study", "smoke", "-out", out, "-name", "varied"}, &bytes.Buffer{}, &stderr, nil)
	assert.Equal(t, exitUsage, code, "an existing folder needs -force")
	assert.Contains(t, stderr.String(), "-force")

	// The same JSON inline, as -task-config takes it.
	stdout.Reset()
	code = run(ctx, []string{"-study", "smoke", "-out", out, "-name", "inline", "-study-config", ` {"seeds": [6], "updates": 3}`}, &stdout, &stderr, nil)
	assert.Equal(t, exitInterrupted, code, "stderr: %s", stderr.String())
	assert.Contains(t, stdout.String(), "× 1 seeds × 3 updates")
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
		{"-study", "table1-pe-g-s2"},
		{"-build-base", "no-such-base"},
		{"-build-base", "flodial-easy-locked", "-study", "smoke"},
		{"-build-base", "flodial-easy-locked", "-resume"},
		{"-build-base", "flodial-easy-locked", "-updates", "3"},
		{"-build-base", "flodial-easy-locked", "-cache", t.TempDir()},
		{"-updates", "3", "-cache", t.TempDir()},
		{"-study", "smoke", "-jobs", "0"},
		{"-study", "smoke", "-jobs", "two"},
		{"-updates", "3", "-jobs", "2"},
		{"-build-base", "flodial-easy-locked", "-jobs", "2"},
	} {
		assertUsageErrorWritesNothing(t, args)
	}
}

func readBytes(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return data
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

	// -resume with the study's folder alone finishes it (two runs at a
	// time here): its study.json is the whole config.
	runOK(t, "-resume", filepath.Join(out, "smoke"), "-jobs", "2")
	data, err = os.ReadFile(filepath.Join(out, "smoke", study.SummaryFile))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &s))
	assert.Equal(t, "complete", s.Status)
}

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestACTModeStopsAndRefusesAnExistingFolder is the quick part of
// TestACTModeRunsThePreset (act_long_test.go, -tags long): with the
// context already ended, -act writes the (empty) study's summary and
// report, prints the table and exits 130; -resume takes its folder; the
// folder it leaves needs -force.
func TestACTModeStopsAndRefusesAnExistingFolder(t *testing.T) {
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"-act", "act-smoke", "-out", out, "-name", "a"}, &stdout, &stderr, nil)
	assert.Equal(t, exitInterrupted, code, "stderr: %s", stderr.String())
	dir := filepath.Join(out, "a")
	for _, f := range []string{"study.json", "summary.json", "report.md"} {
		assert.FileExists(t, filepath.Join(dir, f))
	}
	assert.Contains(t, stdout.String(), "# ACT study a")
	assert.Contains(t, stdout.String(), filepath.Join(dir, "report.md"))
	assert.Contains(t, stdout.String(), "continue with -resume "+dir)
	assert.Contains(t, stderr.String(), "train: interrupted; the report covers the finished runs; a run cut short keeps no checkpoint")

	// -resume takes the ACT study's folder alone (act.ResumeStudy).
	stdout.Reset()
	code = run(ctx, []string{"-resume", dir}, &stdout, &stderr, nil)
	assert.Equal(t, exitInterrupted, code, "stderr: %s", stderr.String())
	assert.Contains(t, stdout.String(), "# ACT study a")
	code = run(ctx, []string{"-resume", dir, "-name", "b"}, &bytes.Buffer{}, &stderr, nil)
	assert.Equal(t, exitUsage, code, "a study's folder takes no other flag")

	stderr.Reset()
	code = run(context.Background(), []string{"-act", "act-smoke", "-out", out, "-name", "a"}, &bytes.Buffer{}, &stderr, nil)
	assert.Equal(t, exitUsage, code, "an existing folder needs -force")
	assert.Contains(t, stderr.String(), "-force")
}

func TestACTModeRejectsBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"-act", "nope"},
		{"-act", "act-smoke", "-updates", "3"},
		{"-act", "act-smoke", "-study", "smoke"},
		{"-act", "act-smoke", "-name", "a/b"},
		{"-act", "act-smoke", "-name", ".."},
	} {
		out := t.TempDir()
		var stderr bytes.Buffer
		code := run(context.Background(), append([]string{"-out", out}, args...), &bytes.Buffer{}, &stderr, nil)
		assert.Equal(t, exitUsage, code, "%v: %s", args, stderr.String())
		assert.Contains(t, stderr.String(), "train:")
		entries, err := os.ReadDir(out)
		require.NoError(t, err)
		assert.Empty(t, entries, "%v wrote nothing", args)
	}
}

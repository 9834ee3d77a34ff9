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

func TestACTModeRunsThePreset(t *testing.T) {
	if testing.Short() {
		t.Skip("six small pipeline runs")
	}
	out := t.TempDir()
	stdout := runOK(t, "-act", "act-smoke", "-out", out, "-name", "a")
	dir := filepath.Join(out, "a")
	for _, f := range []string{"summary.json", "report.md", "plots/table.png", "plots/act-stage.png", "alfworld/seed-1/report.json"} {
		assert.FileExists(t, filepath.Join(dir, f))
	}
	assert.Contains(t, stdout, "# ACT study a")
	assert.Regexp(t, `\| rl-w-act +\|`, stdout)
	assert.Contains(t, stdout, filepath.Join(dir, "report.md"))

	var stderr bytes.Buffer
	code := run(context.Background(), []string{"-act", "act-smoke", "-out", out, "-name", "a"}, &bytes.Buffer{}, &stderr, nil)
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

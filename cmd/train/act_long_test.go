//go:build long

package main

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestACTModeRunsThePreset(t *testing.T) {
	out := t.TempDir()
	stdout := runOK(t, "-act", "act-smoke", "-out", out, "-name", "a")
	dir := filepath.Join(out, "a")
	for _, f := range []string{"summary.json", "report.md", "plots/table.svg", "plots/act-stage.svg", "alfworld/seed-1/report.json"} {
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

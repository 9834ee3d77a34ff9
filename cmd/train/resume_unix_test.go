//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A FIFO in place of a run's log is refused at once (one line, exit 2),
// never read: -resume reads the logs through the bounded reader.
func TestResumeRefusesAFIFOLog(t *testing.T) {
	out := t.TempDir()
	runOK(t, tinyArgs(out, "fifo", "-updates", "1", "-eval-modes", "greedy", "-baselines=false")...)
	fifo := filepath.Join(out, "fifo", evalFile)
	require.NoError(t, os.Remove(fifo))
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	code, stdout, stderr := runWithin(t, []string{"-resume", filepath.Join(out, "fifo"), "-updates", "2"})
	assert.Equal(t, exitUsage, code, "stdout: %s", stdout)
	assert.Contains(t, stderr, "named pipe")
	assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
}

package main

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A bad -capability command line is a usage error that writes nothing.
func TestBadCapabilityFlagsAreUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"-capability", "no-such-setting"},
		{"-capability", "mediq", "-study", "smoke"},
		{"-capability", "mediq", "-build-base", "flodial-easy-locked"},
		{"-capability", "mediq", "-act", "act-smoke"},
		{"-capability", "mediq", "-updates", "3"},
		{"-capability", "mediq", "-name", "a/b"},
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

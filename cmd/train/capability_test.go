package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	arewrun "arew/rl/run"
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
		assertUsageErrorWritesNothing(t, args)
	}
}

// An interrupted base or capability build says what its folder keeps and
// that it starts again with -force, not that a checkpoint was written.
func TestInterruptedBuildSaysWhatItKept(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, args := range [][]string{{"-build-base", "flodial-easy-locked"}, {"-capability", "flodial-easy"}} {
		out := t.TempDir()
		var stderr bytes.Buffer
		code := run(ctx, append(args, "-out", out), io.Discard, &stderr, nil)
		assert.Equal(t, exitInterrupted, code, "%v: %s", args, stderr.String())
		assert.Contains(t, stderr.String(), "keeps only the finished SFT epochs' log (base-sft.jsonl)", args)
		assert.Contains(t, stderr.String(), "with -force builds it again", args)
		assert.NotContains(t, stderr.String(), "checkpoint", args)
	}
	// Stopped in the evaluation, after the policy was saved.
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "policy.safetensors"), nil, 0o644))
	err := buildStopped(arewrun.ErrInterrupted, dir, "policy.safetensors")
	assert.ErrorIs(t, err, arewrun.ErrInterrupted)
	assert.ErrorContains(t, err, "keeps the trained policy (policy.safetensors), not evaluated: no report")
	other := errors.New("disk full")
	assert.Equal(t, other, buildStopped(other, dir, "policy.safetensors"), "other errors pass through")
}

// -choose-lock reads a setting's committed candidates and prints the
// rule's pick; a setting without candidates, or none built under -out,
// is a usage error.
func TestChooseLock(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-choose-lock", "flodial-hard", "-out", "../../docs/results"}, &stdout, &stderr, nil)
	require.Equal(t, 0, code, stderr.String())
	assert.Contains(t, stdout.String(), "The rule picks flodial-hard-locked.")
	for _, args := range [][]string{
		{"-choose-lock", "pe-g-s2"},
		{"-choose-lock", "mediq", "-out", t.TempDir()},
		{"-choose-lock", "mediq", "-study", "smoke"},
		{"-choose-lock", "mediq", "-force"},
	} {
		assertUsageErrorWritesNothing(t, args)
	}
}

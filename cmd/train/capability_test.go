package main

import (
	"arew/rl"
	"arew/tasks"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/rl/study"
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

// A base or capability build stopped before its first checkpoint set says
// that its folder keeps none and that it starts again with -force.
func TestInterruptedBuildSaysWhatItKept(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := t.TempDir()
	for _, args := range [][]string{{"-build-base", "flodial-easy-locked"}, {"-capability", "flodial-easy"}} {
		var stderr bytes.Buffer
		code := run(ctx, append(args, "-out", out), io.Discard, &stderr, nil)
		assert.Equal(t, exitInterrupted, code, stderr.String())
		assert.Contains(t, stderr.String(), "interrupted before the first epoch ended", args)
		assert.Contains(t, stderr.String(), "keeps no checkpoint", args)
		assert.Contains(t, stderr.String(), "with -force builds it from the start", args)
	}
	_, err := os.Stat(filepath.Join(out, "capability-flodial-easy", study.BaseCheckpointDir))
	assert.ErrorIs(t, err, os.ErrNotExist)
	other := errors.New("disk full")
	assert.Equal(t, other, buildStopped(other, out), "other errors pass through")
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

// A capability build stopped after an epoch names its checkpoint set and
// the -resume that goes on from it; -resume takes its folder and no other
// flag, and refuses a finished build.
func TestCapabilityResumes(t *testing.T) {
	study.Capabilities["tiny-cmd-resume"] = tinyBuild
	defer delete(study.Capabilities, "tiny-cmd-resume")
	out := t.TempDir()
	dir := filepath.Join(out, "capability-tiny-cmd-resume")
	stopped := stopAfterEpoch1(t, "-capability", "tiny-cmd-resume", "-out", out)
	assert.Contains(t, stopped, "keeps the build's checkpoint set after its last finished epoch (base-checkpoint/)")
	assert.Contains(t, stopped, "-resume "+dir)

	assertUsageErrorWritesNothing(t, []string{"-resume", dir, "-force"})
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-resume", dir}, &stdout, &stderr, nil)
	require.Equal(t, 0, code, stderr.String())
	assert.Contains(t, stdout.String(), "resuming after epoch 1 of 2")
	assert.Contains(t, stdout.String(), "report "+filepath.Join(dir, study.BaseReportFile))
	stderr.Reset()
	code = run(context.Background(), []string{"-resume", dir}, io.Discard, &stderr, nil)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr.String(), "the capability build is finished")
}

// stopAfterEpoch1 runs the command line args, interrupts it once its first
// epoch has ended, and returns what it wrote to stderr.
func stopAfterEpoch1(t *testing.T, args ...string) string {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr bytes.Buffer
	code := run(ctx, args, cancelOn{"base SFT epoch 1/2", cancel}, &stderr, nil)
	require.Equal(t, exitInterrupted, code, stderr.String())
	return stderr.String()
}

// tinyBuild is a build for the resume tests: a tiny policy, 2 SFT epochs
// on 16 of MediQ's strong demonstrations.
func tinyBuild() rl.BaseConfig {
	sft := rl.DefaultSFTConfig()
	sft.Epochs, sft.MiniBatch = 2, 8
	return rl.BaseConfig{Task: "mediq", Preset: "tiny", Seed: 2, SFT: sft, Sources: []rl.DemoSource{
		{Name: "plain", Policy: tasks.PolicySpec{Kind: "strong"}, Demos: 16, TestDemos: 4}}}
}

// cancelOn is a console that cancels the job once a write holds mark.
type cancelOn struct {
	mark   string
	cancel context.CancelFunc
}

func (c cancelOn) Write(p []byte) (int, error) {
	if strings.Contains(string(p), c.mark) {
		c.cancel()
	}
	return len(p), nil
}

// -resume goes on with a -build-base build stopped after an epoch.
func TestBuildBaseResumes(t *testing.T) {
	study.Bases["tiny-cmd-base"] = tinyBuild
	defer delete(study.Bases, "tiny-cmd-base")
	out := t.TempDir()
	dir := filepath.Join(out, "tiny-cmd-base")
	assert.Contains(t, stopAfterEpoch1(t, "-build-base", "tiny-cmd-base", "-out", out), "-resume "+dir+" goes on from it")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-resume", dir}, &stdout, &stderr, nil)
	require.Equal(t, 0, code, stderr.String())
	assert.Contains(t, stdout.String(), "resuming after epoch 1 of 2")
	assert.Contains(t, stdout.String(), "identical to the shipped base: false")
}

package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// experimentOf builds (does not run) the experiment of args.
func experimentOf(t *testing.T, args ...string) *experiment {
	t.Helper()
	inv, err := parseArgs(args, &bytes.Buffer{})
	require.NoError(t, err)
	e, err := newExperiment(inv, &bytes.Buffer{})
	require.NoError(t, err)
	return e
}

// The estimate of every preset's default run, GRPO's too, is far below
// any machine the command runs on, and grows with each size the issue's
// hostile cases inflate; a budget below the estimate is a usage error
// naming the phase.
func TestMemoryEstimate(t *testing.T) {
	for _, args := range [][]string{
		{"-model", "tiny"}, {"-model", "small"}, {"-model", "base"}, {"-model", "base", "-algo", "grpo"},
		{"-model", "base", "-kl", "0.1", "-eval-episodes", "1000", "-sft-demos", "10000"},
	} {
		m := estimateMemory(experimentOf(t, args...))
		t.Logf("%v: sft %s, update %s, eval %s", args, gib(m.sft), gib(m.update), gib(m.eval))
		assert.Less(t, m.total(), float64(2<<30), "%v", args)
	}
	base := estimateMemory(experimentOf(t, "-model", "tiny"))
	for flag, field := range map[string]func(memoryNeed) float64{
		"-sft-demos":      func(m memoryNeed) float64 { return m.sft },
		"-sft-test-demos": func(m memoryNeed) float64 { return m.sft },
		"-episodes":       func(m memoryNeed) float64 { return m.update },
		"-eval-episodes":  func(m memoryNeed) float64 { return m.eval },
	} {
		m := estimateMemory(experimentOf(t, "-model", "tiny", flag, "1000000"))
		assert.Greater(t, field(m), 50*field(base), flag)
	}
	e := experimentOf(t, "-model", "tiny")
	assert.NoError(t, checkMemory(e, base.total()))
	err := checkMemory(e, base.total()/2)
	var usage *usageError
	assert.ErrorAs(t, err, &usage)
	assert.ErrorContains(t, err, "more than the")
	assert.Greater(t, machineMemory(), float64(64<<20))
}

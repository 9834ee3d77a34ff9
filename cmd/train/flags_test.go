package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/rl"
	arewrun "arew/rl/run"
)

// Every bad flag is exit status 2 with a message, before the run folder
// is made.
func TestBadFlagsAreUsageErrors(t *testing.T) {
	notCkpt := filepath.Join(t.TempDir(), "not.safetensors")
	require.NoError(t, os.WriteFile(notCkpt, []byte("hello"), 0o644))
	for _, args := range [][]string{
		{"-bogus"},
		{"stray-argument"},
		{"-updates", "x"},
		{"-updates", "-1"},
		{"-seed", "-3"},
		{"-algo", "dqn"},
		{"-task", "no-such-task"},
		{"-task", ""},
		{"-task-config", "{not json"},
		{"-task-config", `{"NoSuchField": 1}`},
		{"-task-config", "[1, 2]"},
		{"-model", "huge"},
		{"-arew", "everything"},
		{"-lambda", "NaN"},
		{"-mode", "bogus"},
		{"-flip", "1.5"},
		{"-arew-start", "5", "-arew-end", "3"},
		{"-critic", "both"},
		{"-algo", "grpo", "-critic", "shared"},
		{"-algo", "gspo", "-critic-lr", "1e-3"},
		{"-group", "4"},
		{"-algo", "grpo", "-episodes", "7"},
		{"-algo", "grpo", "-group", "0"},
		{"-episodes", "0"},
		{"-minibatch", "0"},
		{"-epochs", "0"},
		{"-lr", "0"},
		{"-lr", "-1e-3"},
		{"-critic-lr", "Inf"},
		{"-entropy", "-1"},
		{"-kl", "NaN"},
		{"-workers", "-1"},
		{"-instances", "-1"},
		{"-qas", "2"},
		{"-qbt", "-0.5"},
		{"-demonstrator", "oracle"},
		{"-sft-demos", "-1"},
		{"-sft-epochs", "0"},
		{"-sft-minibatch", "0"},
		{"-sft-lr", "0"},
		{"-eval-episodes", "0"},
		{"-eval-every", "-1"},
		{"-eval-modes", "all"},
		{"-baselines=maybe"},
		{"-name", "../escape"},
		{"-name", "a/b"},
		{"-name", ".."},
		{"-init", filepath.Join(t.TempDir(), "missing.safetensors")},
		{"-init", notCkpt},
		{"-config", filepath.Join(t.TempDir(), "missing.json")},
	} {
		assertUsageErrorWritesNothing(t, args)
	}
}

// Bad config files are usage errors too.
func TestBadConfigFilesAreUsageErrors(t *testing.T) {
	for name, body := range map[string]string{
		"not json":       "{",
		"trailing":       `{"updates": 3} {"updates": 4}`,
		"unknown field":  `{"updatez": 3}`,
		"nested unknown": `{"ppo": {"episodez": 3}}`,
		"wrong type":     `{"updates": "three"}`,
		"bad value":      `{"updates": -1}`,
		"bad algo":       `{"algo": "a2c"}`,
		"bad ppo":        `{"ppo": {"episodes": 0}}`,
		"bad grpo":       `{"algo": "grpo", "grpo": {"group_size": 0}}`,
		"bad sft":        `{"sft": {"demos": 4, "train": {"epochs": 0}}}`,
		"bad eval":       `{"eval": {"modes": "neither"}}`,
		"bad name":       `{"name": "a/b"}`,
		"bad preset":     `{"model": {"preset": "giant"}}`,
		"bad task cfg":   `{"task_config": {"Rounds": -4}}`,
		"array":          `[1]`,
	} {
		path := filepath.Join(t.TempDir(), "config.json")
		require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"-out", t.TempDir(), "-config", path}, &stdout, &stderr, nil)
		assert.Equal(t, exitUsage, code, "%s: %s", name, stderr.String())
	}
}

func TestHelpIsNotAnError(t *testing.T) {
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 0, run(context.Background(), []string{"-h"}, &stdout, &stderr, nil))
	assert.Contains(t, stderr.String(), "-sft-demos int")
}

// Flags override the file; what neither sets keeps the defaults of the
// file's algo.
func TestFlagsOverrideTheConfigFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"algo": "gspo", "updates": 7, "seed": 9,
		"grpo": {"prompts": 3, "group_size": 4}, "eval": {"episodes": 11}}`), 0o644))
	inv, err := parseArgs([]string{"-config", path, "-updates", "2", "-lr", "5e-5", "-episodes", "8"}, &bytes.Buffer{})
	require.NoError(t, err)
	c := inv.cfg
	assert.Equal(t, 2, c.Updates)      // flag
	assert.Equal(t, uint64(9), c.Seed) // file
	assert.Equal(t, 11, c.Eval.Episodes)
	require.NotNil(t, c.GRPO)
	assert.Nil(t, c.PPO)
	assert.Equal(t, rl.AlgoGSPO, c.GRPO.Objective)
	assert.Equal(t, 4, c.GRPO.GroupSize)
	assert.Equal(t, 2, c.GRPO.Prompts) // -episodes 8 / group 4
	assert.Equal(t, 5e-5, c.GRPO.Policy.Optim.LR)
	assert.Equal(t, 4e-4, c.GRPO.Policy.ClipHigh, "GSPO's default clip range, not GRPO's")
	assert.Equal(t, uint64(9), c.GRPO.Seed, "nested seeds copy the run seed")
	assert.Equal(t, arewrun.DefaultConfig(rl.AlgoGSPO).Eval.Every, c.Eval.Every)

	// -algo on the command line switches the section, with its defaults.
	inv, err = parseArgs([]string{"-config", path, "-algo", "ppo"}, &bytes.Buffer{})
	require.NoError(t, err)
	require.NotNil(t, inv.cfg.PPO)
	assert.Nil(t, inv.cfg.GRPO)
	assert.Equal(t, arewrun.DefaultConfig(rl.AlgoPPO).PPO.Episodes, inv.cfg.PPO.Episodes)
}

// -init turns the warm start off unless -sft-demos says otherwise; the
// default name tells the settings apart.
func TestInitAndDefaultName(t *testing.T) {
	inv, err := parseArgs([]string{"-init", "x.safetensors"}, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Zero(t, inv.cfg.SFT.Demos)
	assert.True(t, inv.sftFromInit)
	inv, err = parseArgs([]string{"-init", "x.safetensors", "-sft-demos", "5"}, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Equal(t, 5, inv.cfg.SFT.Demos)

	a, err := parseArgs([]string{"-algo", "ppo"}, &bytes.Buffer{})
	require.NoError(t, err)
	b, err := parseArgs([]string{"-arew", "none"}, &bytes.Buffer{})
	require.NoError(t, err)
	c, err := parseArgs([]string{"-seed", "2"}, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Equal(t, "flodial-easy_ppo_arew-as+bt-0.5_small_sft-weak0.2-0.2-2048_u80_s1", a.cfg.Name)
	assert.Contains(t, b.cfg.Name, "_vanilla_")
	assert.NotEqual(t, a.cfg.Name, c.cfg.Name)
}

// Without a run flag the command is the main job, the default study, also
// when it is only told where to write.
func TestOutAloneIsTheDefaultStudy(t *testing.T) {
	for _, args := range [][]string{nil, {"-out", "elsewhere"}, {"-out", "elsewhere", "-force"}} {
		inv, err := parseArgs(args, &bytes.Buffer{})
		require.NoError(t, err, args)
		assert.Equal(t, "default", inv.study, args)
	}
	inv, err := parseArgs([]string{"-out", "elsewhere", "-updates", "3"}, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Empty(t, inv.study, "a run flag makes it one run")
	assert.Equal(t, "elsewhere", inv.out)
}

// -head-rows is off unless given, sets the policy's HeadRows under any
// algo, and names the run apart from the plain graph's.
func TestHeadRowsFlag(t *testing.T) {
	plain, err := parseArgs([]string{"-updates", "3"}, io.Discard)
	require.NoError(t, err)
	assert.False(t, plain.cfg.PPO.Policy.HeadRows)
	on, err := parseArgs([]string{"-updates", "3", "-head-rows"}, io.Discard)
	require.NoError(t, err)
	assert.True(t, on.cfg.PPO.Policy.HeadRows)
	assert.Equal(t, strings.Replace(plain.cfg.Name, "_small_", "_small_head-rows_", 1), on.cfg.Name)
	grpo, err := parseArgs([]string{"-algo", "grpo", "-head-rows=true"}, io.Discard)
	require.NoError(t, err)
	assert.True(t, grpo.cfg.GRPO.Policy.HeadRows)
	assertUsageErrorWritesNothing(t, []string{"-head-rows=maybe"})
	var stderr bytes.Buffer
	require.Zero(t, run(t.Context(), []string{"-h"}, io.Discard, &stderr, nil))
	assert.Contains(t, stderr.String(), "-head-rows")
	assert.Contains(t, stderr.String(), "not bitwise the plain graph")
}

func TestUnknownFlagSuggestsTheNearest(t *testing.T) {
	var stderr bytes.Buffer
	code := run(t.Context(), []string{"-seedd", "2"}, io.Discard, &stderr, nil)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr.String(), "did you mean -seed?")
	stderr.Reset()
	run(t.Context(), []string{"-qqqqqqqqqq", "2"}, io.Discard, &stderr, nil)
	assert.NotContains(t, stderr.String(), "did you mean", "nothing near")
	assert.Equal(t, 1, editDistance("lamda", "lambda"))
	assert.Equal(t, 3, editDistance("kitten", "sitting"))
}

func TestArewFlagNamesItself(t *testing.T) {
	var stderr bytes.Buffer
	code := run(t.Context(), []string{"-arew", "AS", "-out", t.TempDir()}, io.Discard, &stderr, nil)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr.String(), `-arew must be one of none, as, bt or as+bt, got "AS"`)
	assert.NotContains(t, stderr.String(), "advantage:")

	stderr.Reset()
	code = run(t.Context(), []string{"-mode", "big", "-out", t.TempDir()}, io.Discard, &stderr, nil)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr.String(), `-mode: unknown AREW margin mode "big"`)
}

func TestRunFlagsAloneAreNamed(t *testing.T) {
	inv, err := parseArgs([]string{"-seed", "2", "-updates", "1"}, io.Discard)
	require.NoError(t, err)
	assert.Empty(t, inv.study, "run flags alone: one experiment, not the default study")
	assert.Equal(t, []string{"-seed", "-updates"}, inv.runFlags)
}

// A value out of a flag's range is refused by the flag, whose name the
// one-line error starts with, before any config is built.
func TestBadFlagValuesNameTheFlag(t *testing.T) {
	for _, args := range [][]string{
		{"-critic", "twin"}, {"-eval-modes", "x"}, {"-model", "huge"}, {"-lr", "-1"}, {"-lr", "NaN"},
		{"-episodes", "0"}, {"-flip", "2"}, {"-updates", "-3"}, {"-entropy", "-0.1"}, {"-qas", "1.5"},
		{"-lambda", "Inf"}, {"-minibatch", "0"}, {"-sft-epochs", "0"}, {"-eval-episodes", "0"}, {"-workers", "-1"},
	} {
		var stderr bytes.Buffer
		code := run(t.Context(), append(args, "-out", t.TempDir()), io.Discard, &stderr, nil)
		assert.Equal(t, exitUsage, code, "%v", args)
		assert.True(t, strings.HasPrefix(stderr.String(), "train: "+args[0]+" must"), "%v: %s", args, stderr.String())
		assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "%v: one line", args)
	}
}

// assertUsageErrorWritesNothing runs the command line args into a fresh
// -out folder and asserts a usage error, reported on stderr, that leaves
// the folder empty.
func assertUsageErrorWritesNothing(t *testing.T, args []string) {
	t.Helper()
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), append([]string{"-out", out}, args...), &stdout, &stderr, nil)
	assert.Equal(t, exitUsage, code, "%v: %s", args, stderr.String())
	assert.Contains(t, stderr.String(), "train:", "%v", args)
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	assert.Empty(t, entries, "%v: nothing may be written", args)
}

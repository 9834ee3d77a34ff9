package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/engine"
	"arew/model"
	"arew/optim"
	"arew/rl"
	arewrun "arew/rl/run"
)

// tinyArgs is a run of a few seconds: the tiny preset, a short warm start,
// two updates of four episodes, an evaluation after each update.
func tinyArgs(out, name string, extra ...string) []string {
	return append([]string{"-out", out, "-name", name, "-model", "tiny", "-updates", "2", "-episodes", "4",
		"-minibatch", "2", "-epochs", "1", "-sft-demos", "8", "-sft-test-demos", "4", "-sft-epochs", "1",
		"-eval-episodes", "4", "-eval-every", "1", "-workers", "2"}, extra...)
}

// runOK runs the command and requires exit status 0.
func runOK(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr, nil)
	require.Equal(t, 0, code, "stderr: %s\nstdout: %s", stderr.String(), stdout.String())
	return stdout.String()
}

// readJSONL decodes every line of path into a T.
func readJSONL[T any](t *testing.T, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var v T
		require.NoError(t, json.Unmarshal(sc.Bytes(), &v), "line %q", sc.Text())
		out = append(out, v)
	}
	require.NoError(t, sc.Err())
	return out
}

func readConfig(t *testing.T, path string) Config {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var c Config
	require.NoError(t, json.Unmarshal(data, &c))
	return c
}

// loadOptimState restores an AdamW state written by saveOptimState.
func loadOptimState(opt *optim.AdamW, path string) error {
	ts, meta, err := engine.LoadSafetensors(path)
	if err != nil {
		return err
	}
	if meta["format"] != "arew.adamw/1" {
		return fmt.Errorf("format %q", meta["format"])
	}
	st := make(map[string][]float32, len(ts))
	for _, t := range ts {
		st[t.Name] = t.Data.([]float32)
	}
	return opt.ImportState(st)
}

// A tiny run writes every output, each in the documented form.
func TestTinyRunWritesEveryOutput(t *testing.T) {
	out := t.TempDir()
	stdout := runOK(t, tinyArgs(out, "tiny")...)
	dir := filepath.Join(out, "tiny")
	assert.Contains(t, stdout, "== SFT warm start")
	assert.Contains(t, stdout, "== RL: ppo + AREW as+bt")
	assert.Contains(t, stdout, "base vs after RL")

	cfg := readConfig(t, filepath.Join(dir, configFile))
	assert.Equal(t, "tiny", cfg.Name)
	assert.Equal(t, "tiny", cfg.Model.Preset)
	require.NotNil(t, cfg.PPO)
	assert.Equal(t, 4, cfg.PPO.Episodes)
	assert.Equal(t, rl.DefaultPPOConfig().Policy.ClipLow, cfg.PPO.Policy.ClipLow, "rl defaults are written out")
	require.NotNil(t, cfg.Model.Critic)
	assert.Equal(t, 32, cfg.Model.Policy.DModel)
	assert.NotEmpty(t, cfg.Version.Go)

	sft := readJSONL[rl.SFTMetrics](t, filepath.Join(dir, sftFile))
	assert.Len(t, sft, 1)
	ms := readJSONL[rl.Metrics](t, filepath.Join(dir, metricsFile))
	require.Len(t, ms, 2)
	for u, m := range ms {
		assert.Equal(t, u, m.Update)
		assert.Equal(t, rl.AlgoPPO, m.Algo)
		assert.Equal(t, 4, m.Episodes)
		assert.True(t, m.AREWActive)
	}
	evals := readJSONL[evalRecord](t, filepath.Join(dir, evalFile))
	var got []string
	for _, r := range evals {
		got = append(got, fmt.Sprintf("%s@%d/%s", r.Split, r.Update, r.Mode))
		assert.Equal(t, 4, r.Episodes)
	}
	assert.Equal(t, []string{"val@0/greedy", "val@0/sampled", "val@1/greedy", "val@1/sampled",
		"val@2/greedy", "val@2/sampled"}, got)

	st, _, err := arewrun.ReadCheckpointSet(filepath.Join(dir, ckptDir))
	require.NoError(t, err)
	assert.Equal(t, 2, st.Update)
	assert.Equal(t, "complete", st.Info["status"])
	var names []string
	for _, f := range st.Files {
		names = append(names, f.Name)
		assert.Equal(t, 2, f.Update)
	}
	assert.ElementsMatch(t, []string{policyFile, rl.CriticFile, rl.PolicyOptimFile, rl.CriticOptimFile, rl.TrainerFile}, names)

	policy, meta, err := model.Load(filepath.Join(dir, ckptDir, policyFile))
	require.NoError(t, err)
	assert.Equal(t, cfg.Model.Policy, policy.Config)
	assert.Equal(t, "2", meta["update"])
	critic, _, err := model.Load(filepath.Join(dir, ckptDir, rl.CriticFile))
	require.NoError(t, err)
	assert.Equal(t, *cfg.Model.Critic, critic.Config)
	base, _, err := model.Load(filepath.Join(dir, ckptDir, basePolicyFile))
	require.NoError(t, err)
	assert.NotEqual(t, base.Params.Params()[0].Data(), policy.Params.Params()[0].Data(), "RL moved the policy")
	for m, file := range map[*model.Model]string{policy: rl.PolicyOptimFile, critic: rl.CriticOptimFile} {
		opt, err := optim.NewAdamW(m.Params.Params(), optim.AdamWConfig{Beta1: 0.9, Beta2: 0.999, Eps: 1e-8})
		require.NoError(t, err)
		require.NoError(t, loadOptimState(opt, filepath.Join(dir, ckptDir, file)), file)
		assert.Equal(t, 4, opt.Steps(), "%s: 2 updates × 1 epoch × 2 minibatches of 2", file)
	}

	samples := readJSONL[arewrun.Sample](t, filepath.Join(dir, samplesFile))
	require.Len(t, samples, len(evals)*arewrun.SamplesPerEval, "the first episodes of each evaluation")
	for i, smp := range samples {
		r := evals[i/arewrun.SamplesPerEval]
		assert.Equal(t, r.Update, smp.Update)
		assert.Equal(t, r.Mode, smp.Mode)
		assert.Equal(t, i%arewrun.SamplesPerEval, smp.Transcript.Index)
		assert.NotEmpty(t, smp.Transcript.Turns)
	}

	report, err := os.ReadFile(filepath.Join(dir, reportFile))
	require.NoError(t, err)
	for _, want := range []string{"# Run tiny", "status: complete after 2 of 2 updates", "## Base vs after RL",
		"scripted strong", "best constant", "base, greedy", "after 2 updates, sampled", "## Every evaluation", "## SFT",
		"skipped optimiser steps (a non-finite loss or gradient; the weights left as they were): 0 in RL, 0 in SFT",
		"## Transcripts of the latest evaluation (update 2, sampled)", "instance 0, success"} {
		assert.Contains(t, string(report), want)
	}
	leftovers, err := filepath.Glob(filepath.Join(dir, "*", ".*.tmp-*"))
	require.NoError(t, err)
	assert.Empty(t, leftovers, "no temporary files left behind")
}

// A diverging run's report counts the steps it skipped.
func TestReportCountsSkippedSteps(t *testing.T) {
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	args := tinyArgs(out, "d", "-lr", "1e37", "-baselines=false", "-eval-modes", "greedy", "-updates", "20", "-eval-every", "0")
	require.Equal(t, exitFailure, run(context.Background(), args, &stdout, &stderr, nil), "stdout: %s", stdout.String())
	report, err := os.ReadFile(filepath.Join(out, "d", reportFile))
	require.NoError(t, err)
	assert.Contains(t, string(report), "status: diverged")
	assert.Regexp(t, `skipped optimiser steps \(a non-finite loss or gradient; the weights left as they were\): [1-9]\d* in RL`, string(report))
}

// timeless zeroes the wall-clock fields.
func timeless(ms []rl.Metrics) []rl.Metrics {
	for i := range ms {
		ms[i].RolloutSeconds, ms[i].PrepSeconds, ms[i].OptimSeconds = 0, 0, 0
		ms[i].RolloutTokensPerSec, ms[i].TrainTokensPerSec = 0, 0
	}
	return ms
}

func evalsTimeless(rs []evalRecord) []evalRecord {
	for i := range rs {
		rs[i].Seconds = 0
	}
	return rs
}

// metricsJSON is the metrics as JSON text, so NaN (null) compares equal.
func metricsJSON(t *testing.T, ms []rl.Metrics) string {
	data, err := json.Marshal(timeless(ms))
	require.NoError(t, err)
	return string(data)
}

// A run's config.json resolves to the same config, and repeating the run
// from it gives the same metrics and evaluations (timings aside); another
// seed gives others.
func TestConfigRoundTripRepeatsTheRun(t *testing.T) {
	out := t.TempDir()
	runOK(t, tinyArgs(out, "a", "-arew", "as", "-entropy", "0.001", "-task-config", `{ "Critiques": "consistent" }`)...)
	runOK(t, "-out", out, "-config", filepath.Join(out, "a", configFile), "-name", "b", "-workers", "1")
	runOK(t, tinyArgs(out, "c", "-arew", "as", "-entropy", "0.001", "-task-config", `{"Critiques":"consistent"}`, "-seed", "2")...)

	// Resolving a's config.json gives the config a ran with, exactly.
	inv, err := parseArgs(tinyArgs(out, "a", "-arew", "as", "-entropy", "0.001", "-task-config", `{ "Critiques": "consistent" }`), &bytes.Buffer{})
	require.NoError(t, err)
	e0, err := arewrun.New(inv.cfg, out, &bytes.Buffer{})
	require.NoError(t, err)
	inv, err = parseArgs([]string{"-config", filepath.Join(out, "a", configFile)}, &bytes.Buffer{})
	require.NoError(t, err)
	e1, err := arewrun.New(inv.cfg, out, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Equal(t, e0.Config(), e1.Config())
	assert.Equal(t, `{"Critiques":"consistent"}`, string(e1.Config().TaskConfig))
	assert.Equal(t, 0.001, e1.Config().PPO.Policy.EntropyCoef)

	ma := readJSONL[rl.Metrics](t, filepath.Join(out, "a", metricsFile))
	mb := readJSONL[rl.Metrics](t, filepath.Join(out, "b", metricsFile))
	mc := readJSONL[rl.Metrics](t, filepath.Join(out, "c", metricsFile))
	assert.Equal(t, metricsJSON(t, ma), metricsJSON(t, mb))
	assert.NotEqual(t, metricsJSON(t, ma), metricsJSON(t, mc), "another seed, other metrics")
	ea := evalsTimeless(readJSONL[evalRecord](t, filepath.Join(out, "a", evalFile)))
	eb := evalsTimeless(readJSONL[evalRecord](t, filepath.Join(out, "b", evalFile)))
	ja, _ := json.Marshal(ea)
	jb, _ := json.Marshal(eb)
	assert.Equal(t, string(ja), string(jb))
}

// An existing run folder is kept unless -force.
func TestRefusesToOverwriteARun(t *testing.T) {
	out := t.TempDir()
	args := tinyArgs(out, "x", "-updates", "1", "-eval-modes", "greedy", "-baselines=false")
	runOK(t, args...)
	var stdout, stderr bytes.Buffer
	assert.Equal(t, exitUsage, run(context.Background(), args, &stdout, &stderr, nil))
	assert.Contains(t, stderr.String(), "-force")
	runOK(t, append(args, "-force")...)
}

// Cancelling the context (what Ctrl-C does) after the first update stops
// the run with status 130, a loadable checkpoint of that update and a
// report; -init then starts a new run from that checkpoint.
func TestInterruptLeavesALoadableCheckpoint(t *testing.T) {
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, tinyArgs(out, "cut", "-updates", "5", "-eval-every", "0"), &stdout, &stderr,
		func(u int) {
			if u == 0 {
				cancel()
			}
		})
	require.Equal(t, exitInterrupted, code, "stderr: %s", stderr.String())
	dir := filepath.Join(out, "cut")
	assert.Len(t, readJSONL[rl.Metrics](t, filepath.Join(dir, metricsFile)), 1)
	st, _, err := arewrun.ReadCheckpointSet(filepath.Join(dir, ckptDir))
	require.NoError(t, err)
	assert.Equal(t, "interrupted", st.Info["status"])
	assert.Equal(t, 1, st.Update)
	ckpt := filepath.Join(dir, ckptDir, policyFile)
	cut, meta, err := model.Load(ckpt)
	require.NoError(t, err)
	assert.Equal(t, "1", meta["update"])
	report, err := os.ReadFile(filepath.Join(dir, reportFile))
	require.NoError(t, err)
	assert.Contains(t, string(report), "status: interrupted after 1 of 5 updates")

	stdout2 := runOK(t, "-out", out, "-name", "resumed", "-init", ckpt, "-updates", "1", "-episodes", "4",
		"-minibatch", "2", "-eval-episodes", "4", "-baselines=false")
	assert.Contains(t, stdout2, "no SFT warm start")
	cfg := readConfig(t, filepath.Join(out, "resumed", configFile))
	assert.Equal(t, ckpt, cfg.Model.Init)
	assert.Zero(t, cfg.SFT.Demos)
	assert.Equal(t, cut.Config, cfg.Model.Policy)
	base, _, err := model.Load(filepath.Join(out, "resumed", ckptDir, basePolicyFile))
	require.NoError(t, err)
	for i, p := range cut.Params.Params() {
		assert.Equal(t, p.Data(), base.Params.Params()[i].Data(), p.Name)
	}
}

// GRPO, GSPO and PPO with a shared critic run too; they have no separate
// critic to checkpoint.
func TestOtherAlgorithmsRun(t *testing.T) {
	for name, extra := range map[string][]string{
		"grpo":   {"-algo", "grpo", "-group", "2", "-episodes", "4", "-arew", "none"},
		"gspo":   {"-algo", "gspo", "-group", "2", "-episodes", "4", "-arew", "bt", "-flip", "0.2"},
		"shared": {"-critic", "shared", "-kl", "0.05"},
	} {
		t.Run(name, func(t *testing.T) {
			out := t.TempDir()
			args := tinyArgs(out, name, "-updates", "1", "-eval-modes", "sampled", "-baselines=false")
			runOK(t, append(args, extra...)...)
			ms := readJSONL[rl.Metrics](t, filepath.Join(out, name, metricsFile))
			require.Len(t, ms, 1)
			_, err := os.Stat(filepath.Join(out, name, ckptDir, rl.CriticFile))
			assert.True(t, os.IsNotExist(err), "no separate critic")
			policy, _, err := model.Load(filepath.Join(out, name, ckptDir, policyFile))
			require.NoError(t, err)
			assert.Equal(t, name == "shared", policy.Config.ValueHead)
		})
	}
}

func TestNumJSON(t *testing.T) {
	for _, x := range []float64{0, -1.5, 1e-300} {
		data, err := json.Marshal(num(x))
		require.NoError(t, err)
		var y num
		require.NoError(t, json.Unmarshal(data, &y))
		assert.Equal(t, x, float64(y))
	}
	r := evalRecord{Measures: arewrun.Measures{Success: num(0.5), BTProxy: num(math.NaN())}}
	data, err := json.Marshal(r)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"bt_proxy":null`)
	var back evalRecord
	require.NoError(t, json.Unmarshal(data, &back))
	assert.True(t, math.IsNaN(float64(back.BTProxy)), "null reads back as NaN")
}

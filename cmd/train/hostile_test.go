//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/engine"
	"arew/model"
)

// hostileArgs is the tiny run.
func hostileArgs(out, name string, extra ...string) []string {
	return append([]string{"-out", out, "-name", name, "-model", "tiny", "-updates", "2", "-sft-demos", "32",
		"-sft-epochs", "1", "-eval-every", "0", "-eval-episodes", "5", "-episodes", "8", "-baselines=false"}, extra...)
}

// runWithin runs the command, failing the test (not hanging it) if it
// takes longer than a minute.
func runWithin(t *testing.T, args []string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errs bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- run(context.Background(), args, &out, &errs, nil) }()
	select {
	case code = <-done:
	case <-time.After(time.Minute):
		t.Fatalf("train %s: still running after a minute (blocked?)", strings.Join(args, " "))
	}
	return code, out.String(), errs.String()
}

// checkpointClaiming writes a valid tiny checkpoint whose metadata claims
// cfg, with its first weight set to w0.
func checkpointClaiming(t *testing.T, path string, claim func(*model.Config), w0 float32) {
	t.Helper()
	cfg, err := model.NewConfig("tiny", 64, 64)
	require.NoError(t, err)
	m, err := model.New(cfg, 1)
	require.NoError(t, err)
	var ts []engine.NamedTensor
	for _, p := range m.Params.Params() {
		ts = append(ts, engine.NamedTensor{Name: p.Name, Shape: p.Shape, Data: p.Data()})
	}
	ts[0].Data.([]float32)[0] = w0
	claim(&cfg)
	js, err := json.Marshal(cfg)
	require.NoError(t, err)
	require.NoError(t, engine.SaveSafetensors(path, ts, map[string]string{model.MetaFormat: model.FormatName, model.MetaConfig: string(js)}))
}

// Every hostile input of issue 10 is one line on stderr and exit status 2,
// at once, with nothing written: no run folder, no -out folder.
func TestHostileInputIsOneLineAndExit2(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	huge := filepath.Join(dir, "context-1e9.safetensors")
	checkpointClaiming(t, huge, func(c *model.Config) { c.Context = 1e9 }, 0)
	nan := filepath.Join(dir, "nan.safetensors")
	checkpointClaiming(t, nan, func(*model.Config) {}, float32(math.NaN()))
	slots := filepath.Join(dir, "slots.json")
	require.NoError(t, os.WriteFile(slots, []byte(`{"ppo": {"rollout": {"slots": 1000000000}}}`), 0o644))
	big := filepath.Join(dir, "big.json")
	require.NoError(t, os.WriteFile(big, append([]byte(`{"name": "x"}`), bytes.Repeat([]byte(" "), 2<<20)...), 0o644))
	file := filepath.Join(dir, "a-file")
	require.NoError(t, os.WriteFile(file, []byte("keep"), 0o644))

	for _, tc := range []struct {
		name  string
		extra []string
		want  string
		out   string // -out, if not a fresh folder
	}{
		{"config is the zero device", []string{"-config", "/dev/zero"}, "is a device", ""},
		{"config fifo", []string{"-config", fifo}, "named pipe", ""},
		{"config over 1 MiB", []string{"-config", big}, "limit", ""},
		{"init fifo", []string{"-init", fifo}, "named pipe", ""},
		{"init claims context 1e9", []string{"-init", huge}, `the config needs "wpe" of shape [1000000000 32]`, ""},
		{"init with NaN weights", []string{"-init", nan}, "non-finite", ""},
		{"eval-episodes 1e9", []string{"-eval-episodes", "1000000000"}, "-eval-episodes", ""},
		{"episodes 1e8", []string{"-episodes", "100000000"}, "-episodes", ""},
		{"grpo episodes 1e8", []string{"-algo", "grpo", "-group", "4", "-episodes", "100000000"}, "an update of 100000000 episodes", ""},
		{"sft-demos 1e9", []string{"-sft-demos", "1000000000"}, "-sft-demos", ""},
		{"sft-test-demos 1e9", []string{"-sft-test-demos", "1000000000"}, "-sft-test-demos", ""},
		{"sft-minibatch 1e9", []string{"-sft-minibatch", "1000000000"}, "memory", ""},
		{"config rollout slots 1e9", []string{"-config", slots}, "rollout.slots", ""},
		{"workers 1e9", []string{"-workers", "1000000000"}, "workers must be ≤ 4096", ""},
		{"name of 300 bytes", []string{"-name", strings.Repeat("n", 300)}, "at most 200 bytes", ""},
		{"name with a control character", []string{"-name", "a\x01b"}, "printable", ""},
		{"out is a file", nil, "is a file, not a folder", file},
		{"out below a file", nil, "is a file, not a folder", filepath.Join(file, "runs")},
		{"lr 1e300", []string{"-lr", "1e300"}, "float32", ""},
		{"critic-lr 1e300", []string{"-critic-lr", "1e300"}, "float32", ""},
		{"entropy 1e300", []string{"-entropy", "1e300"}, "float32", ""},
		{"kl 1e300", []string{"-kl", "1e300"}, "float32", ""},
		{"sft-lr 1e300", []string{"-sft-lr", "1e300"}, "float32", ""},
		{"lambda 1e300", []string{"-lambda", "1e300"}, "float32", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "runs")
			if tc.out != "" {
				out = tc.out
			}
			code, stdout, stderr := runWithin(t, hostileArgs(out, "h", tc.extra...))
			assert.Equal(t, exitUsage, code, "stderr: %s\nstdout: %s", stderr, stdout)
			assert.Contains(t, stderr, tc.want)
			assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
			assert.NotContains(t, stderr, "goroutine")
			assert.Empty(t, stdout)
			if tc.out == "" {
				assert.NoDirExists(t, out, "nothing written")
			}
		})
	}
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, "keep", string(data))
}

// A run folder that is a file is refused before anything is written.
func TestRunFolderThatIsAFile(t *testing.T) {
	out := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(out, "h"), []byte("keep"), 0o644))
	code, _, stderr := runWithin(t, hostileArgs(out, "h"))
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "is not a folder")
}

// An SFT that diverges (a learning rate within float32 but far too large)
// is a training error, exit 1, naming the divergence rather than a JSON
// encoding failure; whatever checkpoint the failure path writes holds
// finite weights (model.Load refuses any other).
func TestDivergingSFTIsATrainingError(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := runWithin(t, hostileArgs(out, "d", "-sft-lr", "1e30"))
	assert.Equal(t, exitFailure, code, "stderr: %s\nstdout: %s", stderr, stdout)
	assert.Contains(t, stderr, "diverged")
	assert.NotContains(t, stderr, "json: unsupported value")
	for _, f := range []string{basePolicyFile, policyFile} {
		path := filepath.Join(out, "d", ckptDir, f)
		if _, err := os.Stat(path); err == nil {
			_, _, err := model.Load(path)
			assert.NoError(t, err, f)
		}
	}
	assert.FileExists(t, filepath.Join(out, "d", reportFile))
}

// An RL rate that blows the weights up ends the run with exit 1 and a
// "diverged" message after the skipped steps, and leaves the checkpoints
// as they were before (the base; no policy written over it).
func TestDivergingRLKeepsTheLastGoodCheckpoint(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := runWithin(t, hostileArgs(out, "d", "-lr", "1e37"))
	assert.Equal(t, exitFailure, code, "stderr: %s\nstdout: %s", stderr, stdout)
	assert.Contains(t, stderr, "diverged")
	assert.FileExists(t, filepath.Join(out, "d", ckptDir, basePolicyFile))
	assert.NoFileExists(t, filepath.Join(out, "d", ckptDir, policyFile), "no diverged policy is saved")
	assert.FileExists(t, filepath.Join(out, "d", reportFile))
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/model"
	"arew/rl"
)

// evalsByUpdate is eval.jsonl without its wall times.
func evalsByUpdate(t *testing.T, path string) string {
	rs := evalsTimeless(readJSONL[evalRecord](t, path))
	data, err := json.Marshal(rs)
	require.NoError(t, err)
	return string(data)
}

// N updates in one run equal k updates and -resume to N, bitwise in every
// metric but the timings and in every evaluation, for PPO and GRPO: a run
// interrupted after update 2 (before the evaluation due there) continues
// to its 4 updates, and a complete 2-update run is extended to 4 with
// -updates, appending to its logs. Evaluations every 2 updates.
func TestResumeEqualsOneRun(t *testing.T) {
	for name, extra := range map[string][]string{
		"ppo":  {"-kl", "0.05"},
		"grpo": {"-algo", "grpo", "-group", "2", "-episodes", "4"},
	} {
		t.Run(name, func(t *testing.T) {
			out := t.TempDir()
			args := func(run string, more ...string) []string {
				a := tinyArgs(out, run, "-updates", "4", "-eval-every", "2")
				return append(append(a, extra...), more...)
			}
			runOK(t, args("full")...)

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var so, se bytes.Buffer
			code := run(ctx, args("cut"), &so, &se, func(u int) {
				if u == 1 {
					cancel()
				}
			})
			require.Equal(t, exitInterrupted, code, "stderr: %s", se.String())
			// A resume stopped at once leaves a set to resume from again.
			done, stop := context.WithCancel(context.Background())
			stop()
			require.Equal(t, exitInterrupted, run(done, []string{"-resume", filepath.Join(out, "cut")}, &so, &se, nil), se.String())
			stdout := runOK(t, "-resume", filepath.Join(out, "cut"))
			assert.Contains(t, stdout, "resuming at update 2 of 4")

			runOK(t, args("short", "-updates", "2")...)
			runOK(t, "-resume", filepath.Join(out, "short"), "-updates", "4")

			full := filepath.Join(out, "full")
			// RL must have moved the weights, else equal checkpoints below prove nothing.
			start, _, err := model.Load(filepath.Join(full, ckptDir, basePolicyFile))
			require.NoError(t, err)
			end, _, err := model.Load(filepath.Join(full, ckptDir, policyFile))
			require.NoError(t, err)
			moved := false
			for i, p := range start.Params.Params() {
				moved = moved || !assert.ObjectsAreEqual(p.Data(), end.Params.Params()[i].Data())
			}
			require.True(t, moved, "the %s run changed no weight in 4 updates", name)
			want := metricsJSON(t, readJSONL[rl.Metrics](t, filepath.Join(full, metricsFile)))
			for _, r := range []string{"cut", "short"} {
				dir := filepath.Join(out, r)
				assert.Equal(t, want, metricsJSON(t, readJSONL[rl.Metrics](t, filepath.Join(dir, metricsFile))), r)
				assert.Len(t, readJSONL[rl.SFTMetrics](t, filepath.Join(dir, sftFile)), 1, "%s: SFT ran once", r)
				report, err := os.ReadFile(filepath.Join(dir, reportFile))
				require.NoError(t, err)
				assert.Contains(t, string(report), "status: complete after 4 of 4 updates", r)
				cfg := readConfig(t, filepath.Join(dir, configFile))
				assert.Equal(t, 4, cfg.Updates, "%s: config.json says what the folder holds", r)
				a, _, err := model.Load(filepath.Join(full, ckptDir, policyFile))
				require.NoError(t, err)
				b, _, err := model.Load(filepath.Join(dir, ckptDir, policyFile))
				require.NoError(t, err)
				for i, p := range a.Params.Params() {
					require.Equal(t, p.Data(), b.Params.Params()[i].Data(), "%s: %s", r, p.Name)
				}
			}
			fullEvals := evalsTimeless(readJSONL[evalRecord](t, filepath.Join(full, evalFile)))
			cutEvals := evalsTimeless(readJSONL[evalRecord](t, filepath.Join(out, "cut", evalFile)))
			fj, _ := json.Marshal(fullEvals)
			cj, _ := json.Marshal(cutEvals)
			assert.Equal(t, string(fj), string(cj), "the interrupted run's evaluations")
			assert.Equal(t, readBytes(t, filepath.Join(full, samplesFile)), readBytes(t, filepath.Join(out, "cut", samplesFile)),
				"the same transcripts")
			var short []string
			for _, r := range readJSONL[evalRecord](t, filepath.Join(out, "short", evalFile)) {
				short = append(short, fmt.Sprintf("%s@%d", r.Split, r.Update))
			}
			assert.Equal(t, []string{"val@0", "val@0", "val@2", "val@2", "val@4", "val@4"}, short)
			assert.Equal(t, evalsByUpdate(t, filepath.Join(full, evalFile)), evalsByUpdate(t, filepath.Join(out, "short", evalFile)))
		})
	}
}

// -resume refuses, with one line and exit 2 and the folder untouched, a
// checkpoint set that disagrees with its manifest (a kill while saving),
// a complete run without a larger -updates, fewer updates than done,
// other flags, and a folder that is no run's.
func TestResumeRefusals(t *testing.T) {
	out := t.TempDir()
	runOK(t, tinyArgs(out, "done", "-updates", "1", "-eval-modes", "greedy", "-baselines=false")...)
	runOK(t, tinyArgs(out, "spoilt", "-updates", "1", "-eval-modes", "greedy", "-baselines=false")...)
	ckpt := filepath.Join(out, "spoilt", ckptDir)
	base, _, err := model.Load(filepath.Join(ckpt, basePolicyFile))
	require.NoError(t, err)
	require.NoError(t, base.Save(filepath.Join(ckpt, policyFile), nil)) // a policy file the manifest does not name
	done := filepath.Join(out, "done")
	// A log a resume cannot take up: a garbled line.
	runOK(t, tinyArgs(out, "garbled", "-updates", "1", "-eval-modes", "greedy", "-baselines=false")...)
	garbled := filepath.Join(out, "garbled", metricsFile)
	require.NoError(t, os.WriteFile(garbled, append(readBytes(t, garbled), []byte("{not json\n")...), 0o644))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-resume", filepath.Join(out, "spoilt"), "-updates", "3"}, "disagrees with its manifest"},
		{[]string{"-resume", done}, "complete at 1 updates"},
		{[]string{"-resume", done, "-updates", "0"}, "fewer than the 1"},
		{[]string{"-resume", done, "-lr", "0.1"}, "takes only -updates"},
		{[]string{"-resume", done, "-force"}, "takes only -updates"},
		{[]string{"-resume", out}, "not a study folder"},
		{[]string{"-resume", filepath.Join(out, "garbled"), "-updates", "2"}, "metrics.jsonl: invalid character"},
	} {
		t.Run(strings.Join(tc.args[2:], " "), func(t *testing.T) {
			before := readBytes(t, filepath.Join(done, metricsFile))
			var so, se bytes.Buffer
			require.Equal(t, exitUsage, run(context.Background(), tc.args, &so, &se, nil), "stdout: %s", so.String())
			assert.Contains(t, se.String(), tc.want)
			assert.Equal(t, 1, strings.Count(se.String(), "\n"), se.String())
			assert.Equal(t, before, readBytes(t, filepath.Join(done, metricsFile)))
		})
	}
}

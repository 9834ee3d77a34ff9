package study

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/rl"
	"arew/rl/run"
	_ "arew/tasks/all"
)

// PolicyFile is the policy of a run's checkpoint set: its last policy.
const PolicyFile = run.CheckpointDir + "/" + run.PolicyFile

// small is the smoke preset cut further for the tests that run several
// studies: two arms, one seed, three updates, evaluations every two.
func small() Config {
	c := Smoke()
	c.Name = "small"
	c.Arms = c.Arms[:2]
	c.Seeds = []uint64{3}
	c.Updates = 3
	c.Base.Build.Sources[0].Demos = 32
	c.Eval.Episodes = 8
	return c
}

// smallDone is small() run once, for the tests that need a complete small
// study or its base: its folder, which they only read. TestMain removes it.
var smallDone struct {
	once sync.Once
	dir  string
	err  error
}

// smallStudy is the folder of small() run to the end (built on first use).
func smallStudy(t *testing.T) string {
	t.Helper()
	smallDone.once.Do(func() {
		smallDone.dir, smallDone.err = os.MkdirTemp("", "study-small-")
		if smallDone.err == nil {
			_, smallDone.err = Run(context.Background(), small(), smallDone.dir, nil)
		}
	})
	require.NoError(t, smallDone.err)
	return smallDone.dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if smallDone.dir != "" {
		os.RemoveAll(smallDone.dir)
	}
	os.Exit(code)
}

func TestSmokeStudyWritesEveryOutput(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "smoke")
	var log bytes.Buffer
	sum, err := Run(context.Background(), Smoke(), dir, &log)
	require.NoError(t, err, log.String())
	assert.Equal(t, "complete", sum.Status)

	for _, f := range []string{run.SweepFile, SummaryFile, ReportFile, BaseFile, BaseSFTFile} {
		assert.FileExists(t, filepath.Join(dir, f))
	}
	rep, err := os.ReadFile(filepath.Join(dir, ReportFile))
	require.NoError(t, err)
	assert.Contains(t, string(rep), "arew-bt, update 6, instance 0", "the report shows the latest transcripts")
	for _, arm := range []string{"vanilla", "arew", "arew-as", "arew-bt"} {
		for _, seed := range []string{"seed-1", "seed-2"} {
			for _, f := range []string{run.ConfigFile, run.MetricsFile, run.EvalFile, run.SamplesFile, PolicyFile} {
				assert.FileExists(t, filepath.Join(dir, arm, seed, f))
			}
			// Three transcripts per evaluation and mode.
			assert.Len(t, readLines(t, filepath.Join(dir, arm, seed, run.SamplesFile)), 8*run.SamplesPerEval)
			assert.Len(t, readLines(t, filepath.Join(dir, arm, seed, run.MetricsFile)), 6, "one line per update")
			// Updates 0, 2, 4 and 6, greedy and sampled.
			assert.Len(t, readLines(t, filepath.Join(dir, arm, seed, run.EvalFile)), 8)
		}
	}

	// The shape scripts read, decoded without the package's types.
	var raw struct {
		Arms map[string]struct {
			Runs []map[string]json.RawMessage `json:"runs"`
		} `json:"arms"`
	}
	data, err := os.ReadFile(filepath.Join(dir, SummaryFile))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &raw))
	require.Len(t, raw.Arms, 4)
	for name, arm := range raw.Arms {
		require.Len(t, arm.Runs, 2, name)
		for i, r := range arm.Runs {
			var seed uint64
			require.NoError(t, json.Unmarshal(r["seed"], &seed))
			assert.Equal(t, uint64(i+1), seed)
			for _, key := range []string{"base", "final"} {
				var m map[string]map[string]*float64
				require.NoError(t, json.Unmarshal(r[key], &m), "%s %s", name, key)
				for _, mode := range []string{"greedy", "sampled"} {
					for _, f := range []string{"success", "as_proxy", "evidence", "i_as", "c_bt"} {
						require.Contains(t, m[mode], f, "%s %s %s", name, key, mode)
						require.NotNil(t, m[mode][f], "%s %s %s %s", name, key, mode, f)
						assert.True(t, *m[mode][f] >= -1 && *m[mode][f] <= 1, "%s = %v", f, *m[mode][f])
					}
				}
			}
			var to map[string]*int
			require.NoError(t, json.Unmarshal(r["updates_to"], &to))
			assert.Contains(t, to, "0.5")
			assert.Contains(t, to, "0.8")
		}
	}

	require.Len(t, sum.Baselines, 3)
	assert.Equal(t, "scripted strong", sum.Baselines[1].Name)
	assert.Greater(t, float64(sum.Baselines[1].Measures.Success), float64(sum.Baselines[0].Measures.Success),
		"strong beats random")

	report, err := os.ReadFile(filepath.Join(dir, ReportFile))
	require.NoError(t, err)
	for _, want := range []string{`\| vanilla +\| base +\| greedy +\| +2 \|`, `\| arew-bt +\| final +\| sampled +\| +2 \| .* ± `,
		`\| arew +\| +0\.8 \|`, `\| scripted strong +\|`, `!\[success\]\(plots/success.svg\)`, `!\[eval\]\(plots/eval.svg\)`, `!\[training\]\(plots/training.svg\)`} {
		assert.Regexp(t, want, string(report))
	}
	for _, m := range append(run.Reported, run.Measure{Key: "eval"}, run.Measure{Key: "training"}, run.Measure{Key: "phase"}) {
		svg, err := os.ReadFile(filepath.Join(dir, PlotsDir, m.Key+".svg"))
		require.NoError(t, err)
		assert.True(t, bytes.HasPrefix(svg, []byte("<svg ")), m.Key)
	}
	assert.Contains(t, log.String(), "vanilla seed 1 @ 0 val  greedy")
	assert.Contains(t, log.String(), "ETA")
}

func TestStudyStopsCleanlyWhenCancelled(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "stop")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := small()
	sum, err := runStudy(ctx, c, dir, nil, false, func(arm string, seed uint64, done int) {
		if arm == "vanilla" && done == 1 {
			cancel()
		}
	})
	require.ErrorIs(t, err, run.ErrInterrupted)
	assert.Equal(t, "interrupted", sum.Status)
	runs := sum.Arms["vanilla"].Runs
	require.Len(t, runs, 1)
	assert.Equal(t, "interrupted", runs[0].Status)
	assert.Equal(t, 1, runs[0].Done, "stopped after the update in progress")
	assert.Nil(t, runs[0].Final)
	assert.NotNil(t, runs[0].Base.Sampled)
	assert.Empty(t, sum.Arms["arew"].Runs)

	var onDisk Summary
	require.NoError(t, json.Unmarshal(readFile(t, dir, SummaryFile), &onDisk))
	assert.Equal(t, "interrupted", onDisk.Status)
	assert.FileExists(t, filepath.Join(dir, ReportFile))
	assert.FileExists(t, filepath.Join(dir, "vanilla", "seed-3", PolicyFile), "the interrupted run's weights")
	assert.Len(t, readLines(t, filepath.Join(dir, "vanilla", "seed-3", run.MetricsFile)), 1)
}

func TestGreedyOnlyGSPOStudyRuns(t *testing.T) {
	c := small()
	c.Arms = c.Arms[1:]
	c.Updates = 1
	c.Algo, c.PPO = "gspo", nil
	g := rl.DefaultGSPOConfig()
	g.Prompts, g.GroupSize, g.Policy.MiniBatch, g.Policy.Epochs = 2, 2, 4, 1
	c.GRPO = &g
	c.Eval.Modes = "greedy"
	dir := filepath.Join(t.TempDir(), "gspo")
	sum, err := Run(context.Background(), c, dir, nil)
	require.NoError(t, err)
	require.Len(t, sum.Arms["arew"].Runs, 1)
	r := sum.Arms["arew"].Runs[0]
	require.NotNil(t, r.Final)
	assert.NotNil(t, r.Final.Greedy)
	assert.Nil(t, r.Final.Sampled, "not evaluated")
	assert.Equal(t, map[string]*int{"0.5": nil, "0.8": nil}, r.UpdatesTo, "thresholds count sampled success only")
	assert.Contains(t, string(readFile(t, dir, ReportFile)), "## Curves (greedy evaluations")
	assert.FileExists(t, filepath.Join(dir, PlotsDir, "success.svg"))
}

func TestRunRejectsBadInputBeforeWriting(t *testing.T) {
	tmp := t.TempDir()
	full := filepath.Join(tmp, "full")
	require.NoError(t, os.MkdirAll(full, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(full, "x"), nil, 0o644))
	notModel := filepath.Join(tmp, "not-a-model.safetensors")
	require.NoError(t, os.WriteFile(notModel, []byte("nonsense"), 0o644))
	for _, tc := range []struct {
		name   string
		edit   func(*Config)
		dir    string
		errHas string
	}{
		{"unknown task", func(c *Config) { c.Task = "no-such-task" }, "", "no-such-task"},
		{"bad task config", func(c *Config) { c.TaskConfig = []byte(`{"NoSuchField": 1}`) }, "", "NoSuchField"},
		{"missing base", func(c *Config) { c.Base = Base{Path: filepath.Join(tmp, "absent.safetensors")} }, "", "absent"},
		{"base not a model", func(c *Config) { c.Base = Base{Path: notModel} }, "", "not-a-model"},
		{"unknown demonstrator", func(c *Config) { c.Base.Build.Sources[0].Policy.Kind = "oracle" }, "", "oracle"},
		{"folder not empty", func(*Config) {}, full, "not empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := small()
			tc.edit(&c)
			dir := tc.dir
			if dir == "" {
				dir = filepath.Join(tmp, "out")
			}
			_, err := Run(context.Background(), c, dir, nil)
			var input *run.InputError
			require.ErrorAs(t, err, &input)
			assert.Contains(t, err.Error(), tc.errHas)
			if tc.dir == "" {
				assert.NoDirExists(t, dir)
			}
		})
	}
}

func readFile(t *testing.T, parts ...string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(parts...))
	require.NoError(t, err)
	return data
}

func readLines(t *testing.T, path string) [][]byte {
	t.Helper()
	return bytes.Split(bytes.TrimSpace(readFile(t, path)), []byte("\n"))
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	return string(data)
}

// A study cut short mid-run, by an interrupt and then by a kill that left
// lines in the logs past the run's checkpoint set, resumes to the files one
// uninterrupted Run writes: the complete run kept, the cut run continued
// from its set, bit for bit, wall times aside.
func TestResumeContinuesACutRunBitwise(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "cut")
	c := small()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := runStudy(ctx, c, dir, nil, false, func(arm string, seed uint64, done int) {
		if arm == "arew" && done == 2 {
			cancel()
		}
	})
	require.ErrorIs(t, err, run.ErrInterrupted)
	keptPolicy := readFile(t, dir, "vanilla", "seed-3", PolicyFile)
	cut := filepath.Join(dir, "arew", "seed-3")
	require.FileExists(t, filepath.Join(cut, run.CheckpointDir, run.ManifestFile))
	// A kill after the set: a later update's line, a later evaluation's,
	// and a line cut short.
	metrics := readLines(t, filepath.Join(cut, run.MetricsFile))
	require.Len(t, metrics, 2)
	appendTo(t, filepath.Join(cut, run.MetricsFile), bytes.Replace(metrics[1], []byte(`"update":1`), []byte(`"update":2`), 1), []byte("\n{\"upd"))
	appendTo(t, filepath.Join(cut, run.EvalFile), []byte(`{"update":3,"split":"val","mode":"greedy"}`+"\n"))

	var log bytes.Buffer
	sum, err := Resume(context.Background(), c, dir, &log)
	require.NoError(t, err, log.String())
	assert.Equal(t, "complete", sum.Status)
	assert.Contains(t, log.String(), "vanilla seed 3: complete in the previous attempt, kept")
	assert.Contains(t, log.String(), "arew seed 3: continuing from its checkpoint set at update 2")
	assert.NotContains(t, log.String(), "== base:", "the built base is reused")
	assert.Equal(t, keptPolicy, readFile(t, dir, "vanilla", "seed-3", PolicyFile), "a complete run is not redone")
	var prov run.Provenance
	require.NoError(t, json.Unmarshal(readFile(t, cut, run.ProvenanceFile), &prov))
	assert.Equal(t, 2, prov.ResumedAt)

	whole := smallStudy(t) // the same config, run without a cut
	assert.Equal(t, string(readFile(t, whole, SummaryFile)), string(readFile(t, dir, SummaryFile)), "resumed = uninterrupted")
	w := filepath.Join(whole, "arew", "seed-3")
	timings := []string{"rollout_s", "prep_s", "optim_s", "rollout_tok_s", "train_tok_s", "seconds"}
	for _, f := range []string{run.MetricsFile, run.EvalFile} {
		assert.Equal(t, withoutKeys(t, readLines(t, filepath.Join(w, f)), timings), withoutKeys(t, readLines(t, filepath.Join(cut, f)), timings), f)
	}
	for _, f := range []string{run.SamplesFile, PolicyFile} {
		assert.Equal(t, readFile(t, w, f), readFile(t, cut, f), f)
	}

	var input *run.InputError
	other := c
	other.Updates = 4
	_, err = Resume(context.Background(), other, dir, nil)
	assert.ErrorAs(t, err, &input, "a different config")
	_, err = Resume(context.Background(), c, filepath.Join(tmp, "absent"), nil)
	assert.ErrorAs(t, err, &input, "nothing to resume")
}

// A study stopped inside its own base build goes on from the build's
// checkpoint set when resumed: the same base file and summary as the
// uninterrupted study, and the set is gone once the base is saved.
func TestResumeContinuesACutBaseBuild(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cut")
	c := small()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := Run(ctx, c, dir, cancelAfter{"base SFT epoch 1/2", cancel})
	require.ErrorIs(t, err, run.ErrInterrupted)
	require.FileExists(t, filepath.Join(dir, StudyBaseCheckpointDir, run.ManifestFile))
	assert.NoFileExists(t, filepath.Join(dir, BaseFile))

	var log bytes.Buffer
	sum, err := Resume(context.Background(), c, dir, &log)
	require.NoError(t, err, log.String())
	assert.Equal(t, "complete", sum.Status)
	assert.Contains(t, log.String(), "== base: resuming after epoch 1 of 2")
	assert.NoDirExists(t, filepath.Join(dir, StudyBaseCheckpointDir))

	whole := smallStudy(t)
	assert.Equal(t, readFile(t, whole, BaseFile), readFile(t, dir, BaseFile), "the base, byte for byte")
	assert.Equal(t, untimedFile(t, filepath.Join(whole, BaseSFTFile)), untimedFile(t, filepath.Join(dir, BaseSFTFile)))
	assert.Equal(t, string(readFile(t, whole, SummaryFile)), string(readFile(t, dir, SummaryFile)), "resumed = uninterrupted")
}

// A cut run whose checkpoint set was changed is refused with the way out
// named, before anything of the run is written.
func TestResumeRefusesABadSet(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cut")
	c := small()
	c.Base = Base{Path: filepath.Join(smallStudy(t), BaseFile)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := runStudy(ctx, c, dir, nil, false, func(arm string, seed uint64, done int) {
		if arm == "arew" && done == 1 {
			cancel()
		}
	})
	require.ErrorIs(t, err, run.ErrInterrupted)
	cut := filepath.Join(dir, "arew", "seed-3")
	appendTo(t, filepath.Join(cut, run.CheckpointDir, rl.TrainerFile), []byte(" "))
	before := readFile(t, cut, run.MetricsFile)
	_, err = Resume(context.Background(), c, dir, nil)
	var input *run.InputError
	require.ErrorAs(t, err, &input)
	assert.ErrorContains(t, err, "remove "+cut)
	assert.Equal(t, before, readFile(t, cut, run.MetricsFile))
}

func appendTo(t *testing.T, path string, parts ...[]byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o644)
	require.NoError(t, err)
	for _, p := range parts {
		_, err = f.Write(p)
		require.NoError(t, err)
	}
	require.NoError(t, f.Close())
}

// withoutKeys is the JSON lines with the named top-level keys removed.
func withoutKeys(t *testing.T, lines [][]byte, keys []string) []string {
	t.Helper()
	var out []string
	for _, l := range lines {
		var m map[string]any
		require.NoError(t, json.Unmarshal(l, &m))
		for _, k := range keys {
			delete(m, k)
		}
		out = append(out, mustJSON(t, m))
	}
	return out
}

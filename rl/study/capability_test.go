package study

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/rl"
	"arew/rl/run"
	"arew/tasks"
)

// Every capability recipe is one plain source of the strong policy on a
// Table 1 setting, or a curriculum of two whose epochs follow each other,
// and builds.
func TestCapabilityRecipes(t *testing.T) {
	assert.Equal(t, []string{"flodial-easy", "flodial-hard", "mediq", "pe-f-d6", "pe-f-d6-echo", "pe-f-d6-echo-noise", "pe-f-d6-echo-pairs", "pe-f-d6-echo-pairs-base", "pe-f-d6-echo-pairs-noise", "pe-f-d6-echo-then-pairs", "pe-f-d6-echo-then-pairs-dagger", "pe-f-d6-echo-then-pairs-dagger-base", "pe-f-d6-echo-then-pairs-dagger-repeat", "pe-f-d6-echo-then-pairs-dagger-repeat-decay", "pe-f-d6-echo-then-pairs-dagger-repeat-seed2", "pe-f-d6-pairs", "pe-f-d8", "pe-f-d8-echo", "pe-f-d8-echo-pairs", "pe-f-d8-echo-then-pairs-dagger-base", "pe-g-s2", "pe-g-s2-demos32k", "pe-g-s2-echo", "pe-g-s2-echo-dagger-base", "pe-g-s3", "pe-g-s3-echo", "pe-g-s3-echo-dagger-base", "telecom-dual", "telecom-solo"}, CapabilityNames())
	for _, name := range CapabilityNames() {
		cfg := Capabilities[name]()
		if strings.Contains(name, "-then-") {
			require.Len(t, cfg.Sources, 2, name)
			n := cfg.SFT.Epochs / 2
			assert.Equal(t, &rl.EpochRange{First: 1, Last: n}, cfg.Sources[0].Epochs, name)
			assert.Equal(t, &rl.EpochRange{First: n + 1, Last: 2 * n}, cfg.Sources[1].Epochs, name)
		} else {
			require.Len(t, cfg.Sources, 1, name)
		}
		assert.Equal(t, strings.Contains(name, "-dagger"), cfg.DAgger != nil, name)
		if strings.HasSuffix(name, "-decay") {
			assert.Equal(t, 21504, cfg.SFT.Optim.Decay, "%s: 12 epochs of 1024 steps, then rounds of 1536, 2048, 2560 and 3072", name)
			assert.InDelta(t, 1e-4, cfg.SFT.Optim.MinLR, 1e-12, name)
		} else {
			assert.Zero(t, cfg.SFT.Optim.Decay, name)
		}
		for _, src := range cfg.Sources {
			assert.Equal(t, tasks.PolicySpec{Kind: "strong"}, src.Policy, name)
			assert.Empty(t, src.Style, name)
		}
		_, _, err := rl.BaseSources(cfg)
		assert.NoError(t, err, name)
	}
}

// PE-F D=6's best recipe is the same on PE-F D=8, and on PE-G its first
// stage alone (no pairs layout there), with the same DAgger rounds.
func TestBestPERecipeOnTheOtherSettings(t *testing.T) {
	best := Capabilities["pe-f-d6-echo-then-pairs-dagger-base"]()
	d8 := best
	d8.Task = "pe-f-d8"
	assert.Equal(t, d8, Capabilities["pe-f-d8-echo-then-pairs-dagger-base"]())
	for _, task := range []string{"pe-g-s2", "pe-g-s3"} {
		g := Capabilities[task+"-echo-dagger-base"]()
		want := best
		want.Task, want.SFT.Epochs = task, best.SFT.Epochs/2
		want.Sources = []rl.DemoSource{best.Sources[0]}
		want.Sources[0].Name, want.Sources[0].Epochs = "plain", nil
		assert.Equal(t, want, g, task)
	}
}

// tinyMediQ registers capability recipe name for the test: a tiny policy
// on MediQ's strong demonstrations (demos of them, 4 held out), SFT
// epochs, then rounds of DAgger, each of 8 demonstrations and 1 epoch.
func tinyMediQ(t *testing.T, name string, seed uint64, epochs, demos, rounds int) {
	sft := rl.DefaultSFTConfig()
	sft.Epochs = epochs
	Capabilities[name] = func() rl.BaseConfig {
		return rl.BaseConfig{Task: "mediq", Preset: "tiny", Seed: seed, SFT: sft, Sources: []rl.DemoSource{
			{Name: "plain", Policy: tasks.PolicySpec{Kind: "strong"}, Demos: demos, TestDemos: 4}},
			DAgger: &rl.DAggerConfig{Rounds: rounds, Demos: 8, Share: 0.5, Epochs: 1, Sampler: rl.SamplerConfig{Temperature: 1}}}
	}
	t.Cleanup(func() { delete(Capabilities, name) })
}

// BuildCapability trains (a DAgger round included), evaluates and writes
// its files; the report names the target and whether it was met, and the
// DAgger round; an unknown recipe is an input error.
func TestBuildCapability(t *testing.T) {
	tinyMediQ(t, "tiny-mediq", 1, 1, 32, 1)
	dir := filepath.Join(t.TempDir(), "cap")
	sum, err := BuildCapability(t.Context(), "tiny-mediq", dir, nil)
	require.NoError(t, err)
	for _, f := range []string{BaseReportFile, BaseSummaryFile, BaseSFTFile, "policy.safetensors"} {
		_, err := os.Stat(filepath.Join(dir, f))
		assert.NoError(t, err, f)
	}
	assert.Greater(t, float64(sum.Strong), 0.8)
	assert.InDelta(t, float64(sum.Greedy)/float64(sum.Strong), float64(sum.Ratio), 1e-12)
	assert.Equal(t, float64(sum.Ratio) >= CapabilityTarget, sum.Met)
	report, err := os.ReadFile(filepath.Join(dir, BaseReportFile))
	require.NoError(t, err)
	assert.Contains(t, string(report), "target ≥ 0.85×")
	assert.Contains(t, string(report), "-capability tiny-mediq")
	assert.Contains(t, string(report), "scripted strong")
	require.Len(t, sum.DAgger, 1)
	assert.Equal(t, 8, sum.DAgger[0].Demos)
	assert.Positive(t, sum.DAgger[0].LearnerTurns)
	assert.Contains(t, string(report), "DAgger round 1 of 1: 8 new demonstrations of plain")
	assert.Contains(t, string(report), "the belief skill alone (strong queries, base beliefs)")
	var hybrid []BaseRow
	for _, r := range sum.Rows {
		if strings.HasPrefix(r.Policy, "strong queries, base beliefs, ") {
			hybrid = append(hybrid, r)
		}
	}
	require.Len(t, hybrid, 2)
	assert.Equal(t, "strong queries, base beliefs, greedy", hybrid[0].Policy)
	assert.Equal(t, hybrid[0].Measures.Success, sum.Beliefs)

	for _, r := range sum.Rows {
		if !strings.Contains(r.Policy, "greedy") && !strings.Contains(r.Policy, "sampled") {
			assert.Nil(t, r.Repeats, "%s: a scripted row is not split", r.Policy)
			continue
		}
		require.NotNil(t, r.Repeats, r.Policy)
		assert.Equal(t, BaseEvalEpisodes, r.Repeats.Episodes, r.Policy)
		assert.Equal(t, r.Repeats.WithRepeat == 0, r.Measures.Repeats == 0, "%s: episodes with a repeat, and the mean repeats", r.Policy)
	}
	assert.Contains(t, string(report), "episodes split by whether they repeat a query")

	_, err = BuildCapability(t.Context(), "nope", dir, nil)
	assert.ErrorContains(t, err, "no capability recipe")
}

// A curriculum is judged on the layout it ends on: the last source's rows.
func TestCapabilityJudgesTheLastSource(t *testing.T) {
	cfg := Capabilities["pe-f-d6-echo-then-pairs"]()
	row := func(source, policy string, success float64) BaseRow {
		return BaseRow{Source: source, Policy: policy, Measures: &run.Measures{Success: run.Num(success)}}
	}
	s := &CapabilitySummary{Config: cfg, Rows: []BaseRow{
		row("echo", "base, greedy", 0.9), row("echo", "scripted strong", 0.9),
		row("echo+pairs", "base, greedy", 0.4), row("echo+pairs", "scripted strong", 0.8),
		row("echo", hybridPolicy+", greedy", 0.6), row("echo+pairs", hybridPolicy+", greedy", 0.1),
	}}
	s.judge()
	assert.Equal(t, run.Num(0.4), s.Greedy)
	assert.Equal(t, run.Num(0.5), s.Ratio)
	assert.Equal(t, run.Num(0.1), s.Beliefs)
	assert.False(t, s.Met)
	assert.Contains(t, s.Report(), "judged on the last source's layout, echo+pairs")
	assert.Contains(t, s.Report(), "in epochs 7–12")
}

// cancelAfter is a console that cancels its build once a line holding
// mark is written.
type cancelAfter struct {
	mark   string
	cancel context.CancelFunc
}

func (c cancelAfter) Write(p []byte) (int, error) {
	if strings.Contains(string(p), c.mark) {
		c.cancel()
	}
	return len(p), nil
}

// A capability build stopped part way (in its SFT, with a log line a
// kill cut short) goes on from its checkpoint set with ResumeCapability
// to the same policy, log and table, bit for bit, as a build never
// stopped; a finished build, or a folder without a set, is not resumed.
func TestResumeCapability(t *testing.T) {
	tinyMediQ(t, "tiny-mediq-resume", 2, 2, 24, 2)
	whole := filepath.Join(t.TempDir(), "whole")
	want, err := BuildCapability(t.Context(), "tiny-mediq-resume", whole, nil)
	require.NoError(t, err)

	for _, stopAfter := range []string{"epoch 1/4", "epoch 3/4"} {
		dir := filepath.Join(t.TempDir(), "cut")
		ctx, cancel := context.WithCancel(t.Context())
		_, err = BuildCapability(ctx, "tiny-mediq-resume", dir, cancelAfter{"base SFT " + stopAfter, cancel})
		cancel()
		require.ErrorIs(t, err, run.ErrInterrupted, stopAfter)
		_, err = os.Stat(filepath.Join(dir, BaseReportFile))
		require.ErrorIs(t, err, os.ErrNotExist, "stopped in the SFT")
		job, name, err := BuildOf(dir)
		require.NoError(t, err)
		assert.Equal(t, JobCapability, job)
		assert.Equal(t, "tiny-mediq-resume", name)
		log, err := os.OpenFile(filepath.Join(dir, BaseSFTFile), os.O_APPEND|os.O_WRONLY, 0)
		require.NoError(t, err)
		_, err = log.WriteString(`{"epoch":9,"steps"`) // a line a kill cut short
		require.NoError(t, err)
		require.NoError(t, log.Close())

		got, err := ResumeCapability(t.Context(), dir, nil)
		require.NoError(t, err, stopAfter)
		assert.Equal(t, want.Greedy, got.Greedy)
		require.Len(t, got.DAgger, 2, "the rounds before the stop are read back from the log")
		for _, f := range []string{"policy.safetensors", BaseSFTFile, BaseSummaryFile} {
			assert.Equal(t, untimedFile(t, filepath.Join(whole, f)), untimedFile(t, filepath.Join(dir, f)), "%s, stopped after %s", f, stopAfter)
		}
		_, err = ResumeCapability(t.Context(), dir, nil)
		assert.ErrorContains(t, err, "is finished", "a finished build")
	}
	_, err = ResumeCapability(t.Context(), t.TempDir(), nil)
	assert.ErrorContains(t, err, "not a build that can resume")

	// A recipe changed since the stop does not resume.
	dir := filepath.Join(t.TempDir(), "changed")
	ctx, cancel := context.WithCancel(t.Context())
	_, err = BuildCapability(ctx, "tiny-mediq-resume", dir, cancelAfter{"base SFT epoch 1/4", cancel})
	cancel()
	require.ErrorIs(t, err, run.ErrInterrupted)
	tinyMediQ(t, "tiny-mediq-resume", 2, 2, 32, 2)
	_, err = ResumeCapability(t.Context(), dir, nil)
	assert.ErrorContains(t, err, "kept under another config")
}

// untimedFile is a file's bytes with every "seconds" field's value (a
// log's clock readings) blanked.
func untimedFile(t *testing.T, path string) string {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return regexp.MustCompile(`"seconds": ?[0-9.e+-]+`).ReplaceAllString(string(data), `"seconds":0`)
}

// splitByRepeat counts the episodes with a repeated query and the success
// of each part; an empty part is NaN.
func TestSplitByRepeat(t *testing.T) {
	ep := func(repeats int, success bool) tasks.Measures {
		return tasks.Measures{Repeats: repeats, Success: success}
	}
	s := splitByRepeat([]tasks.Measures{ep(0, true), ep(2, false), ep(1, true), ep(0, true), ep(3, false), ep(0, false)})
	assert.Equal(t, 6, s.Episodes)
	assert.Equal(t, 3, s.WithRepeat)
	assert.InDelta(t, 1.0/3, float64(s.SuccessWith), 1e-12)
	assert.InDelta(t, 2.0/3, float64(s.SuccessWithout), 1e-12)
	none := splitByRepeat([]tasks.Measures{ep(0, true)})
	assert.Zero(t, none.WithRepeat)
	assert.True(t, math.IsNaN(float64(none.SuccessWith)))
	assert.Equal(t, run.Num(1), none.SuccessWithout)
	assert.Empty(t, RepeatTable([]BaseRow{{Policy: "scripted strong"}}))
	table := RepeatTable([]BaseRow{{Source: "plain", Policy: "base, greedy", Repeats: s}})
	assert.Regexp(t, `\| plain \| base, greedy \| +3 of 6 \| +0\.333 \| +0\.667 \|`, table)
}

// A base build (-build-base) stopped after an epoch goes on with
// ResumeShipped to the same base file and summary, bit for bit; a
// capability resume refuses its folder. Its summary and report keep its
// DAgger round and wall time, as a capability build's do.
func TestResumeShipped(t *testing.T) {
	sft := rl.DefaultSFTConfig()
	sft.Epochs = 2
	Bases["tiny-base-resume"] = func() rl.BaseConfig {
		return rl.BaseConfig{Task: "mediq", Preset: "tiny", Seed: 3, SFT: sft, Sources: []rl.DemoSource{
			{Name: "plain", Policy: tasks.PolicySpec{Kind: "strong"}, Demos: 24, TestDemos: 4}},
			DAgger: &rl.DAggerConfig{Rounds: 1, Demos: 8, Share: 0.5, Epochs: 1, Sampler: rl.SamplerConfig{Temperature: 1}}}
	}
	t.Cleanup(func() { delete(Bases, "tiny-base-resume") })
	whole := filepath.Join(t.TempDir(), "whole")
	want, err := BuildShipped(t.Context(), "tiny-base-resume", whole, nil)
	require.NoError(t, err)
	assert.False(t, want.IsShipped)
	require.Len(t, want.DAgger, 1)
	assert.Equal(t, 8, want.DAgger[0].Demos)
	assert.Positive(t, want.Seconds)
	report, err := os.ReadFile(filepath.Join(whole, BaseReportFile))
	require.NoError(t, err)
	assert.Contains(t, string(report), "- DAgger round 1 of 1: 8 new demonstrations of plain, the learner writing")
	assert.Contains(t, string(report), "sampled at temperature 1; ")
	assert.Contains(t, string(report), " wall\n")

	dir := filepath.Join(t.TempDir(), "cut")
	ctx, cancel := context.WithCancel(t.Context())
	_, err = BuildShipped(ctx, "tiny-base-resume", dir, cancelAfter{"base SFT epoch 1/3", cancel})
	cancel()
	require.ErrorIs(t, err, run.ErrInterrupted)
	job, name, err := BuildOf(dir)
	require.NoError(t, err)
	assert.Equal(t, []string{JobBuildBase, "tiny-base-resume"}, []string{job, name})
	_, err = ResumeCapability(t.Context(), dir, nil)
	assert.ErrorContains(t, err, "a build-base build, not a capability build")

	got, err := ResumeShipped(t.Context(), dir, nil)
	require.NoError(t, err)
	assert.Equal(t, want.SHA256, got.SHA256, "the base file, byte for byte")
	for _, f := range []string{BaseFile, BaseSFTFile, BaseSummaryFile} {
		assert.Equal(t, untimedFile(t, filepath.Join(whole, f)), untimedFile(t, filepath.Join(dir, f)), f)
	}
	_, err = ResumeShipped(t.Context(), dir, nil)
	assert.ErrorContains(t, err, "the build-base build is finished")
}

package study

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/rl"
	"arew/tasks"
)

// Every capability recipe is one plain source of the strong policy on a
// Table 1 setting, and builds.
func TestCapabilityRecipes(t *testing.T) {
	assert.Equal(t, []string{"flodial-easy", "flodial-hard", "mediq", "pe-f-d6", "pe-f-d6-echo", "pe-f-d6-echo-noise", "pe-f-d6-echo-pairs", "pe-f-d6-echo-pairs-base", "pe-f-d6-echo-pairs-noise", "pe-f-d6-pairs", "pe-f-d8", "pe-f-d8-echo", "pe-f-d8-echo-pairs", "pe-g-s2", "pe-g-s2-demos32k", "pe-g-s2-echo", "pe-g-s3", "pe-g-s3-echo", "telecom-dual", "telecom-solo"}, CapabilityNames())
	for _, name := range CapabilityNames() {
		cfg := Capabilities[name]()
		require.Len(t, cfg.Sources, 1, name)
		assert.Equal(t, tasks.PolicySpec{Kind: "strong"}, cfg.Sources[0].Policy, name)
		assert.Empty(t, cfg.Sources[0].Style, name)
		_, _, err := rl.BaseSources(cfg)
		assert.NoError(t, err, name)
	}
}

// BuildCapability trains, evaluates and writes its files; the report
// names the target and whether it was met; an unknown recipe is an input
// error.
func TestBuildCapability(t *testing.T) {
	sft := rl.DefaultSFTConfig()
	sft.Epochs = 1
	Capabilities["tiny-mediq"] = func() rl.BaseConfig {
		return rl.BaseConfig{Task: "mediq", Preset: "tiny", Seed: 1, SFT: sft, Sources: []rl.DemoSource{
			{Name: "plain", Policy: tasks.PolicySpec{Kind: "strong"}, Demos: 32, TestDemos: 4}}}
	}
	defer delete(Capabilities, "tiny-mediq")
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

	_, err = BuildCapability(t.Context(), "nope", dir, nil)
	assert.ErrorContains(t, err, "no capability recipe")
}

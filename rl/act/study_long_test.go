//go:build long

package act

import (
	"arew/rl/run"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSmokeStudies runs both smoke presets end to end: every run's folder,
// summary.json with the table's shape, report.md and the plots.
func TestSmokeStudies(t *testing.T) {
	for _, tc := range []struct {
		preset string
		rows   int
		folder string
	}{
		{"act-smoke", len(AllRows), "webshop/seed-2/report.json"},
		{"act-transfer-smoke", 2 * len(AllRows), "transfer/seed-1/source-critic.jsonl"},
	} {
		t.Run(tc.preset, func(t *testing.T) {
			cfg, err := StudyPreset(tc.preset)
			require.NoError(t, err)
			dir := t.TempDir()
			sum, err := RunStudy(context.Background(), cfg, dir, testWriter{t})
			require.NoError(t, err)
			assert.Len(t, sum.Table, tc.rows)
			for _, f := range []string{"summary.json", "report.md", "study.json", "plots/act-stage.svg", "plots/table.svg", tc.folder} {
				assert.FileExists(t, filepath.Join(dir, f))
			}
			var back map[string]any
			b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &back))
			assert.Len(t, back["table"], tc.rows)
			assert.NotEmpty(t, sum.Orderings)
			if tc.preset == "act-smoke" {
				require.NotNil(t, sum.Table[0].WebShopReward, "the WebShop mean reward beside the table")
				assert.Len(t, sum.Table[0].WebShopReward.PerSeed, len(cfg.Seeds))
			}
			assert.Len(t, sum.Curves, len(cfg.Seeds)*len(sum.order))
			again, err := Summarize(dir)
			require.NoError(t, err)
			for _, pair := range [][2]any{{sum.Table, again.Table}, {sum.Offline, again.Offline}, {sum.Orderings, again.Orderings}} {
				want, err := json.Marshal(pair[0]) // NaN cells compare as null
				require.NoError(t, err)
				got, err := json.Marshal(pair[1])
				require.NoError(t, err)
				assert.JSONEq(t, string(want), string(got), "rebuilt from the runs' report.json")
			}
		})
	}
}

// TestStudyStopsInsideARun: a context that ends during the second run of
// act-smoke ends the study with run.ErrInterrupted, keeping the first run.
func TestStudyStopsInsideARun(t *testing.T) {
	cfg, err := StudyPreset("act-smoke")
	require.NoError(t, err)
	cfg.Seeds = cfg.Seeds[:1]
	first := cfg
	first.Runs = cfg.Runs[:1]
	const plenty = 1 << 30
	left := plenty
	_, err = RunStudy(endsAfter{context.Background(), &left}, first, t.TempDir(), testWriter{t})
	require.NoError(t, err)
	left = plenty - left + 5 // the first run's checks and the study's, then 5 into the second run
	dir := t.TempDir()
	sum, err := RunStudy(endsAfter{context.Background(), &left}, cfg, dir, testWriter{t})
	require.Error(t, err)
	assert.True(t, errors.Is(err, run.ErrInterrupted), "%v", err)
	assert.FileExists(t, filepath.Join(dir, "alfworld/seed-1/report.json"), "the finished run is kept")
	assert.NoFileExists(t, filepath.Join(dir, "webshop/seed-1/report.json"), "the cut run is not")
	assert.FileExists(t, filepath.Join(dir, "summary.json"))
	require.NotNil(t, sum)
}

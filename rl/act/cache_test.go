package act

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/rl/run"
)

// An ACT study under a result cache stores its runs; the same study in
// another folder takes them from the cache (their configs without their
// folders), copies their files and gives the same table.
func TestCachedRunsGiveTheSameTable(t *testing.T) {
	tmp := t.TempDir()
	ctx := run.WithCache(context.Background(), &run.Cache{Dir: filepath.Join(tmp, "cache"), Code: "test"})
	cfg := tinyStudy(t)
	cfg.Runs = cfg.Runs[:1]
	first, err := RunStudy(ctx, cfg, filepath.Join(tmp, "a"), nil)
	require.NoError(t, err)
	again, err := RunStudy(ctx, cfg, filepath.Join(tmp, "b"), nil)
	require.NoError(t, err)
	want, err := json.Marshal(first.Table)
	require.NoError(t, err)
	got, err := json.Marshal(again.Table)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(got))
	a, err := os.ReadFile(filepath.Join(tmp, "a", "alfworld", "seed-1", "report.json"))
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(tmp, "b", "alfworld", "seed-1", "report.json"))
	require.NoError(t, err)
	assert.Equal(t, a, b, "the run's files are copied")
	var attempts []run.Provenance
	data, err := os.ReadFile(filepath.Join(tmp, "b", run.ProvenanceFile))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &attempts))
	require.Len(t, attempts[0].Cached, 1)
	assert.Equal(t, "alfworld seed 1", attempts[0].Cached[0].Cell)
}

// Two runs at once (run.WithJobs) give the table one after another gives.
func TestStudyInParallelGivesTheSameTable(t *testing.T) {
	tmp := t.TempDir()
	cfg := tinyStudy(t)
	seq, err := RunStudy(context.Background(), cfg, filepath.Join(tmp, "seq"), nil)
	require.NoError(t, err)
	par, err := RunStudy(run.WithJobs(context.Background(), 2), cfg, filepath.Join(tmp, "par"), nil)
	require.NoError(t, err)
	want, err := json.Marshal(seq.Table) // NaN cells compare as null
	require.NoError(t, err)
	got, err := json.Marshal(par.Table)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(got))
}

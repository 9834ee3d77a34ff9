package study

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

// A study under a result cache stores its runs; the same study again, its
// base given by path, takes every run from the cache (the base keyed by
// content) and writes the same summary.json.
func TestCachedRunsGiveTheSameSummary(t *testing.T) {
	tmp := t.TempDir()
	ctx := run.WithCache(context.Background(), &run.Cache{Dir: filepath.Join(tmp, "cache"), Code: "test"})
	c := small()
	c.Updates, c.Eval.Every = 1, 0
	_, err := Run(ctx, c, filepath.Join(tmp, "a"), nil)
	require.NoError(t, err)
	c.Base = Base{Path: filepath.Join(tmp, "a", BaseFile)}
	_, err = Run(ctx, c, filepath.Join(tmp, "b"), nil)
	require.NoError(t, err)
	assert.Equal(t, string(readFile(t, tmp, "a", SummaryFile)), string(readFile(t, tmp, "b", SummaryFile)))
	assert.Equal(t, readFile(t, tmp, "a", "arew", "seed-3", run.EvalFile), readFile(t, tmp, "b", "arew", "seed-3", run.EvalFile),
		"the run's files are copied")
	var attempts []run.Provenance
	require.NoError(t, json.Unmarshal(readFile(t, tmp, "b", run.ProvenanceFile), &attempts))
	require.Len(t, attempts[0].Cached, len(c.Arms))
	assert.Equal(t, "vanilla seed 3", attempts[0].Cached[0].Cell)
	_, err = os.Stat(filepath.Join(tmp, "cache", attempts[0].Cached[0].Key, run.ManifestFile))
	assert.NoError(t, err, "the provenance names the entry")
}

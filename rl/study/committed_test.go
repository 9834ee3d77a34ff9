package study

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/rl/run"
)

// Every AREW study committed under docs/results still decodes, validates
// and matches its folder's study.json as a resume checks it
// (run.Sweep.Open), so -resume accepts it. (ACT's studies have a kind.)
func TestCommittedStudiesResume(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(committedResults, "*", run.SweepFile))
	require.NoError(t, err)
	n := 0
	for _, path := range paths {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		var kind struct{ Kind string }
		require.NoError(t, json.Unmarshal(data, &kind))
		if kind.Kind != "" {
			continue
		}
		n++
		var c Config
		if !assert.NoError(t, DecodeConfig(data, &c), path) || !assert.NoError(t, c.Validate(), path) {
			continue
		}
		sw := &run.Sweep{Kind: "study", Dir: filepath.Dir(path), Config: c}
		assert.NoError(t, sw.Open(true), path)
	}
	assert.GreaterOrEqual(t, n, 10, "the committed studies")
}

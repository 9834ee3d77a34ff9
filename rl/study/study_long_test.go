//go:build long

package study

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/rl/run"
)

// The whole-study comparisons (-tags long): each runs small() again, once
// or twice, to compare every file with the shared complete one.

func TestStudyIsDeterministic(t *testing.T) {
	tmp, first := t.TempDir(), smallStudy(t)
	c := small()
	_, err := Run(context.Background(), c, filepath.Join(tmp, "b"), nil)
	require.NoError(t, err)
	a, b := readFile(t, first, SummaryFile), readFile(t, tmp, "b", SummaryFile)
	assert.Equal(t, string(a), string(b), "same config, same summary")
	assert.Equal(t, readFile(t, first, "arew", "seed-3", PolicyFile), readFile(t, tmp, "b", "arew", "seed-3", PolicyFile),
		"same final weights")

	// The same base given as a checkpoint gives the same runs.
	c.Base = Base{Path: filepath.Join(first, BaseFile)}
	sum, err := Run(context.Background(), c, filepath.Join(tmp, "c"), nil)
	require.NoError(t, err)
	var firstSum Summary
	require.NoError(t, json.Unmarshal(a, &firstSum))
	assert.Equal(t, mustJSON(t, firstSum.Arms), mustJSON(t, sum.Arms))
	assert.NoFileExists(t, filepath.Join(tmp, "c", BaseFile), "no base is built when one is given")
}

// Two runs at once (run.WithJobs) give the files one after another gives:
// the summary, and each run's weights, evaluations and transcripts.
func TestStudyInParallelIsTheSame(t *testing.T) {
	tmp := t.TempDir()
	c := small()
	c.Seeds = []uint64{3, 4}
	c.Base = Base{Path: filepath.Join(smallStudy(t), BaseFile)}
	_, err := Run(context.Background(), c, filepath.Join(tmp, "seq"), nil)
	require.NoError(t, err)
	var log bytes.Buffer
	_, err = Run(run.WithJobs(context.Background(), 2), c, filepath.Join(tmp, "par"), &log)
	require.NoError(t, err, log.String())
	assert.Equal(t, string(readFile(t, tmp, "seq", SummaryFile)), string(readFile(t, tmp, "par", SummaryFile)))
	for _, arm := range []string{"vanilla", "arew"} {
		for _, seed := range []string{"seed-3", "seed-4"} {
			for _, f := range []string{PolicyFile, run.SamplesFile} {
				assert.Equal(t, readFile(t, tmp, "seq", arm, seed, f), readFile(t, tmp, "par", arm, seed, f), "%s %s %s", arm, seed, f)
			}
			evals := func(d string) []string {
				return withoutKeys(t, readLines(t, filepath.Join(tmp, d, arm, seed, run.EvalFile)), []string{"seconds"})
			}
			assert.Equal(t, evals("seq"), evals("par"), "%s %s evaluations", arm, seed)
		}
	}
	assert.Contains(t, log.String(), "arew seed 4: done in")
}

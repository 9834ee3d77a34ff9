package act

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/rl/run"
)

// committedResults holds the studies committed with the code.
const committedResults = "../../docs/results"

// TestCommittedStudiesResume: every ACT study committed under
// docs/results (a study.json with a kind) resumes as cmd/train -resume
// does it (run.ReadJSON, ResumeStudy), in a copy of its folder and with
// a context already ended, so no stage runs: the runs whose report.json
// is committed are kept and the first other one is interrupted. A study
// whose every run is committed (act-table1) completes instead, and its
// summary.json, report.md and the plots its summary lists come out byte
// for byte as committed.
func TestCommittedStudiesResume(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(committedResults, "*", run.SweepFile))
	require.NoError(t, err)
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	n, complete := 0, 0
	for _, path := range paths {
		var kind struct{ Kind string }
		require.NoError(t, run.ReadJSON(path, run.MaxConfigBytes, &kind))
		if kind.Kind == "" {
			continue // an AREW study (rl/study's TestCommittedStudiesResume)
		}
		n++
		src := filepath.Dir(path)
		name := filepath.Base(src)
		dir := filepath.Join(t.TempDir(), name)
		require.NoError(t, os.CopyFS(dir, os.DirFS(src)))
		var cfg StudyConfig
		require.NoError(t, run.ReadJSON(filepath.Join(dir, run.SweepFile), run.MaxConfigBytes, &cfg), name)
		if name == "act-alfworld" { // written before choice_format, when the slot was the only format
			assert.Equal(t, ChoiceSlot, cfg.Runs[0].Choice)
		}
		_, err := ResumeStudy(ended, cfg, dir, nil)
		if errors.Is(err, run.ErrInterrupted) {
			continue // its runs are not committed
		}
		require.NoError(t, err, name)
		complete++
		var committed Summary
		require.NoError(t, run.ReadJSON(filepath.Join(src, "summary.json"), run.MaxConfigBytes, &committed), name)
		plots, err := filepath.Glob(filepath.Join(dir, "plots", "*"))
		require.NoError(t, err)
		assert.Len(t, plots, len(committed.Plots), "%s: the plots drawn are the ones committed", name)
		for _, f := range append([]string{"summary.json", "report.md"}, committed.Plots...) {
			want, err := os.ReadFile(filepath.Join(src, f))
			require.NoError(t, err)
			got, err := os.ReadFile(filepath.Join(dir, f))
			require.NoError(t, err)
			assert.True(t, string(want) == string(got), "%s/%s is not as committed", name, f)
		}
	}
	assert.GreaterOrEqual(t, n, 3, "the committed ACT studies")
	assert.GreaterOrEqual(t, complete, 1, "a study with its runs committed (act-table1)")
}

// A config decodes strictly, and one without choice_format (written
// before the setting) has the slot format.
func TestConfigDecoding(t *testing.T) {
	data, err := json.Marshal(DefaultConfig())
	require.NoError(t, err)
	var c Config
	require.NoError(t, json.Unmarshal(data, &c))
	assert.Equal(t, DefaultConfig(), c)

	var fields map[string]any
	require.NoError(t, json.Unmarshal(data, &fields))
	delete(fields, "choice_format")
	old, err := json.Marshal(fields)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(old, &c))
	assert.Equal(t, ChoiceSlot, c.Choice)

	fields["choice"] = "slot"
	bad, err := json.Marshal(fields)
	require.NoError(t, err)
	assert.ErrorContains(t, json.Unmarshal(bad, &c), `unknown field "choice"`)
}

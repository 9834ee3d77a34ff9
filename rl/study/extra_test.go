package study

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A study of telecom, whose evaluations carry the task's own counts, gets
// a curve of each and their final test table; a study of a task without
// any (TestSmokeStudyWritesEveryOutput) gets neither.
func TestTelecomStudyShowsItsCounts(t *testing.T) {
	c := small()
	c.Task, c.TaskConfig = "telecom-dual", nil
	c.Base.Build.Task = "telecom-dual"
	c.Base.Build.Sources[0].Policy.QBT = 0
	c.Updates = 1
	c.Eval.Test = 4
	dir := filepath.Join(t.TempDir(), "telecom")
	sum, err := Run(context.Background(), c, dir, nil)
	require.NoError(t, err)
	var keys []string
	for _, m := range sum.extraMeasures() {
		keys = append(keys, m.Key)
	}
	assert.Equal(t, []string{"message_turns", "no_effect_writes", "tool_errors", "tool_turn_ratio", "tool_turns", "unexpected_writes"}, keys)
	assert.FileExists(t, filepath.Join(dir, PlotsDir, "tool_turn_ratio.svg"))
	assert.FileExists(t, filepath.Join(dir, PlotsDir, "tool_errors.svg"))
	report := string(readFile(t, dir, ReportFile))
	assert.Contains(t, report, "The task's own counts per episode")
	assert.Contains(t, report, "| tool turn ratio |")
	r := sum.Arms[c.Arms[0].Name].Runs[0]
	assert.Equal(t, r.Test.Sampled.Extra["tool_errors"], r.Test.Sampled.Extra["tool_errors"], "a count, not NaN")

	plain := &Summary{}
	assert.Empty(t, plain.extraMeasures())
	assert.Empty(t, plain.ExtraTestTable())
}

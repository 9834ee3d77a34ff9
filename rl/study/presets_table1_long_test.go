//go:build long

package study

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every ready setting of table1 and telecom starts: its study at smoke size (one
// seed, one update of 16 episodes, 4 validation and 4 test instances)
// trains and writes the final evaluation of every arm.
func TestTable1ReadySettingsStart(t *testing.T) {
	for _, name := range []string{"table1", "telecom"} {
		suite := Suites[name]()
		ready, err := suite.Runnable()
		require.NoError(t, err, name)
		for _, set := range ready {
			c, err := Preset(suite.Study(set).Name)
			require.NoError(t, err)
			c.Seeds, c.Updates = c.Seeds[:1], 1
			c.PPO.Episodes = 16 // vanilla-tuned's minibatches are 16 episodes
			c.Eval.Every, c.Eval.Episodes, c.Eval.Test = 1, 4, 4
			sum, err := Run(t.Context(), c, filepath.Join(t.TempDir(), c.Name), nil)
			require.NoError(t, err, c.Name)
			assert.Equal(t, "complete", sum.Status, c.Name)
			for _, a := range c.Arms {
				require.Len(t, sum.Arms[a.Name].Runs, 1, a.Name)
				assert.NotNil(t, sum.Arms[a.Name].Runs[0].Final, a.Name)
			}
		}
	}
}

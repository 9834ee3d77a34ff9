package all

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
)

// Every registered task hands out AS turns, and BT turns all but
// telecom's two settings, whose every turn is an action.
func TestHasTurns(t *testing.T) {
	for _, name := range tasks.Names() {
		task, err := tasks.New(name, fastConfig(name))
		require.NoError(t, err, name)
		as, err := tasks.HasTurns(task, tasks.AS)
		require.NoError(t, err, name)
		assert.True(t, as, name)
		bt, err := tasks.HasTurns(task, tasks.BT)
		require.NoError(t, err, name)
		assert.Equal(t, !strings.HasPrefix(name, "telecom-"), bt, name)
	}
}

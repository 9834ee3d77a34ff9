package all_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
	_ "arew/tasks/all"
)

// The tasks whose episodes reveal their hidden state (tasks.Revealer, for
// transcripts) say it in words, the same for the same instance, and
// differently across instances that differ.
func TestRevealers(t *testing.T) {
	for _, name := range []string{"flodial-easy", "flodial-hard", "mediq", "pe-g-s2", "pe-f-d8", "telecom-solo", "telecom-dual"} {
		task, err := tasks.New(name, nil)
		require.NoError(t, err, name)
		seen := map[string]bool{}
		for i := range 40 {
			a, err := task.NewEpisode(tasks.Val, i)
			require.NoError(t, err)
			b, err := task.NewEpisode(tasks.Val, i)
			require.NoError(t, err)
			ra, ok := a.(tasks.Revealer)
			require.True(t, ok, "%s reveals its truth", name)
			assert.NotEmpty(t, ra.Reveal())
			assert.Equal(t, ra.Reveal(), b.(tasks.Revealer).Reveal())
			seen[ra.Reveal()] = true
		}
		assert.Greater(t, len(seen), 2, "%s: the truth varies across instances", name)
	}
}

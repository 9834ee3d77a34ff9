package flodial

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
	"arew/tasks/taskstest"
)

// FuzzEpisode feeds arbitrary token sequences to both parsers (queries and
// beliefs) through taskstest.CheckEpisode, which holds the episode to the
// tasks contract (no panic, critiques in range, vocabulary, turn limit,
// MaxTokens); every episode also plays all 2·Rounds turns and has finite
// measures.
func FuzzEpisode(f *testing.F) {
	const sep = taskstest.TurnSeparator
	f.Add([]byte{7, sep, 22, 25, 25, 25, 25, 25})
	f.Add([]byte{sep, sep, 200, 100, 0, 255, 1, 2, 3, 4, 5})
	f.Add([]byte{20, sep, 20, sep, 20, sep, 20, sep, 20})
	f.Add([]byte{9, 9, 9, sep, 24, 24, 24, 24, 24, 24})
	f.Add([]byte{})
	var all []*Task
	for _, critiques := range CritiqueRules {
		cfg := HardConfig()
		cfg.Critiques = critiques
		task, err := New("fuzz", cfg)
		require.NoError(f, err)
		all = append(all, task)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, task := range all {
			ep, err := task.NewEpisode(tasks.Test, len(data)%7)
			require.NoError(t, err)
			limit := 2 * task.cfg.Rounds
			m := taskstest.CheckEpisode(t, task, ep, taskstest.TurnsFromBytes(data), limit)
			assert.Equal(t, limit, m.Turns)
			assert.False(t, math.IsNaN(m.Evidence) || math.IsNaN(m.IAS) || math.IsNaN(m.CBT))
		}
	})
}

package mediq

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
	f.Add([]byte{30, sep, 60, 68, 60, 60, 6, 60, 68, 60, 60})
	f.Add([]byte{sep, sep, 200, 100, 0, 255, 1, 2, 3, 4, 5})
	f.Add([]byte{30, sep, 30, sep, 30, sep, 30})
	f.Add([]byte{6, 6, 6, 6, 6, 6, 6, 6, 6, 6})
	f.Add([]byte{})
	var all []*Task
	for _, critiques := range []string{"spec", "consistent"} {
		cfg := DefaultConfig()
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

// FuzzParseBelief: the belief parser alone; a parse that succeeds gives two
// normalised beliefs over the four options.
func FuzzParseBelief(f *testing.F) {
	f.Add([]byte{60, 68, 60, 60, 6, 60, 68, 60, 60})
	f.Add([]byte{59, 59, 59, 59, 6, 59, 59, 59, 59})
	f.Add([]byte{60, 68, 60, 60})
	f.Add([]byte{6, 6, 6, 6, 6, 6, 6, 6, 6})
	task, err := New("fuzz", DefaultConfig())
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, data []byte) {
		toks := make([]tasks.Token, len(data))
		for i, b := range data {
			toks[i] = tasks.Token(int8(b))
		}
		real, cf, err := task.parseBelief(toks)
		if err != nil {
			return
		}
		require.Len(t, real, 4)
		require.Len(t, cf, 4)
		assert.InDelta(t, 1, real[0]+real[1]+real[2]+real[3], 1e-12)
		assert.InDelta(t, 1, cf[0]+cf[1]+cf[2]+cf[3], 1e-12)
	})
}

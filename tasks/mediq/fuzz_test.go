package mediq

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
	"arew/tasks/internal/diagnosis/diagnosistest"
	"arew/tasks/taskstest"
)

// FuzzEpisode holds MediQ under both critique rules to the tasks contract
// (diagnosistest.FuzzEpisode).
func FuzzEpisode(f *testing.F) {
	const sep = taskstest.TurnSeparator
	var all []tasks.Task
	for _, critiques := range CritiqueRules {
		cfg := DefaultConfig()
		cfg.Critiques = critiques
		task, err := New("fuzz", cfg)
		require.NoError(f, err)
		all = append(all, task)
	}
	diagnosistest.FuzzEpisode(f, all, 2*DefaultConfig().Rounds, []byte{30, sep, 60, 68, 60, 60, 6, 60, 68, 60, 60},
		[]byte{sep, sep, 200, 100, 0, 255, 1, 2, 3, 4, 5}, []byte{30, sep, 30, sep, 30, sep, 30},
		[]byte{6, 6, 6, 6, 6, 6, 6, 6, 6, 6}, []byte{})
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

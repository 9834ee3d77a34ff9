package flodial

import (
	"testing"

	"github.com/stretchr/testify/require"

	"arew/tasks"
	"arew/tasks/internal/diagnosis/diagnosistest"
	"arew/tasks/taskstest"
)

// FuzzEpisode holds FloDial-Hard under every critique rule to the tasks
// contract (diagnosistest.FuzzEpisode).
func FuzzEpisode(f *testing.F) {
	const sep = taskstest.TurnSeparator
	var all []tasks.Task
	for _, critiques := range CritiqueRules {
		cfg := HardConfig()
		cfg.Critiques = critiques
		task, err := New("fuzz", cfg)
		require.NoError(f, err)
		all = append(all, task)
	}
	diagnosistest.FuzzEpisode(f, all, 2*HardConfig().Rounds, []byte{7, sep, 22, 25, 25, 25, 25, 25},
		[]byte{sep, sep, 200, 100, 0, 255, 1, 2, 3, 4, 5}, []byte{20, sep, 20, sep, 20, sep, 20, sep, 20},
		[]byte{9, 9, 9, sep, 24, 24, 24, 24, 24, 24}, []byte{})
}

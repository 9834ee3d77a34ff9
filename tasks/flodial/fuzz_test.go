package flodial

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
)

// FuzzEpisode feeds arbitrary token sequences to both parsers (queries and
// beliefs): each turn takes a length byte and that many bytes as signed token
// ids (so ids below 0 and past the vocabulary occur). No input may panic,
// every episode ends within 2·Rounds turns, and every observation token is
// in the vocabulary.
func FuzzEpisode(f *testing.F) {
	f.Add([]byte{1, 7, 6, 22, 25, 25, 25, 25, 25}) // a query, a belief
	f.Add([]byte{0, 0, 9, 200, 100, 0, 255, 1, 2, 3, 4, 5})
	f.Add([]byte{1, 20, 1, 20, 1, 20, 1, 20, 1, 20})
	f.Add([]byte{3, 9, 9, 9, 6, 24, 24, 24, 24, 24, 24})
	f.Add([]byte{})
	var all []*Task
	for _, critiques := range []string{"spec", "consistent"} {
		cfg := HardConfig()
		cfg.Critiques = critiques
		task, err := New("fuzz", cfg)
		require.NoError(f, err)
		all = append(all, task)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, task := range all {
			fuzzOne(t, task, data)
		}
	})
}

func fuzzOne(t *testing.T, task *Task, data []byte) {
	ep, err := task.NewEpisode(tasks.Test, len(data)%7)
	require.NoError(t, err)
	limit := 2 * task.cfg.Rounds
	for turn := 0; !ep.Done(); turn++ {
		require.Less(t, turn, limit, "episode did not end")
		var a []tasks.Token
		if len(data) > 0 {
			n := int(data[0]) % 12
			data = data[1:]
			for ; n > 0 && len(data) > 0; n-- {
				a = append(a, tasks.Token(int8(data[0])))
				data = data[1:]
			}
		}
		obs, s, err := ep.Step(a)
		require.NoError(t, err)
		assert.Contains(t, []int8{-1, 0, 1}, s.Z)
		for _, tok := range obs {
			assert.True(t, tok >= 0 && int(tok) < task.vocab.Size(), "observation token %d", tok)
		}
	}
	m := ep.Measures()
	assert.Equal(t, limit, m.Turns)
	assert.False(t, math.IsNaN(m.Evidence) || math.IsNaN(m.IAS) || math.IsNaN(m.CBT))
	_, _, err = ep.Step(nil)
	assert.Error(t, err)
}

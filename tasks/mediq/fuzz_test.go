package mediq

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
)

// FuzzEpisode feeds arbitrary token sequences to both parsers (queries and
// beliefs with their counterfactual): each turn takes a length byte and that
// many bytes as signed token ids (so ids below 0 and past the vocabulary
// occur). No input may panic, every episode ends within 2·Rounds turns, and
// every observation token is in the vocabulary.
func FuzzEpisode(f *testing.F) {
	f.Add([]byte{1, 30, 9, 60, 68, 60, 60, 6, 60, 68, 60, 60}) // a query, a belief
	f.Add([]byte{0, 0, 9, 200, 100, 0, 255, 1, 2, 3, 4, 5})
	f.Add([]byte{1, 30, 1, 30, 1, 30, 1, 30})
	f.Add([]byte{10, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6})
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

package rl

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
)

func TestStyledConfig(t *testing.T) {
	got, err := StyledConfig(json.RawMessage(`{"Echo": true}`), tasks.Hasty)
	require.NoError(t, err)
	assert.JSONEq(t, `{"Echo": true, "Style": "hasty"}`, string(got))
	got, err = StyledConfig(nil, tasks.Careful)
	require.NoError(t, err)
	assert.JSONEq(t, `{"Style": "careful"}`, string(got))
	got, err = StyledConfig(json.RawMessage(`{"Echo": true}`), "")
	require.NoError(t, err)
	assert.Equal(t, `{"Echo": true}`, string(got))
	for _, bad := range []struct{ layout, style, err string }{
		{`{"Style": "careful"}`, "hasty", "sets Style"},
		{`[1]`, "hasty", "not a JSON object"},
		{`null`, "hasty", "not a JSON object"},
		{`{}`, "sloppy", "Style must be"},
	} {
		_, err := StyledConfig(json.RawMessage(bad.layout), bad.style)
		assert.ErrorContains(t, err, bad.err, bad.layout)
	}
}

// The locked recipe builds, for every task that has the mechanism, two
// sources that share one vocabulary: careful strong and hasty locked.
func TestLockedRecipeSources(t *testing.T) {
	for task, layout := range map[string]string{"flodial-easy": `{"Echo": true}`, "pe-g-s2": ``, "mediq": `{}`} {
		r := LockedRecipe{Layout: json.RawMessage(layout), Strong: 2, Locked: 2, TestDemos: 1, QAS: 0.03, QBT: 0.02}
		src, _, err := BaseSources(BaseConfig{Task: task, Sources: r.Sources(), SFT: DefaultSFTConfig()})
		require.NoError(t, err, task)
		require.Len(t, src, 2)
		assert.Equal(t, "strong", src[0].Policy.Name(), task)
		assert.Equal(t, "locked(0.03,0.02)", src[1].Policy.Name(), task)
		for i, style := range []string{tasks.Careful, tasks.Hasty} {
			ep, err := src[i].Task.NewEpisode(tasks.Train, 0)
			require.NoError(t, err)
			assert.Equal(t, "<"+style+">", src[i].Task.Vocab().Word(ep.Prompt()[1]), task)
		}
	}
	bad := LockedRecipe{Layout: json.RawMessage(`{"Style": "hasty"}`), Strong: 1, Locked: 1}
	_, _, err := BaseSources(BaseConfig{Task: "mediq", Sources: bad.Sources(), SFT: DefaultSFTConfig()})
	assert.ErrorContains(t, err, "base source careful")
}

package study

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/model"
	"arew/rl"
	"arew/tasks"
)

// Every shipped base loads, has the architecture its recipe builds, and
// fits the task variants of its sources; the presets that use one are
// valid and accept it.
func TestShippedBases(t *testing.T) {
	for _, name := range BaseNames() {
		p, err := LoadShipped(name)
		require.NoError(t, err, name)
		cfg := Bases[name]()
		src, maxTokens, err := rl.BaseSources(cfg)
		require.NoError(t, err)
		want, err := model.NewConfig(cfg.Preset, src[0].Task.Vocab().Size(), maxTokens)
		require.NoError(t, err)
		assert.Equal(t, want, p.Config, name)
		for _, s := range src {
			_, err := rl.NewRoller(p, s.Task, rl.DefaultRolloutConfig())
			assert.NoError(t, err, "%s fits %s", name, s.Name)
		}
	}
	_, err := LoadShipped("nope")
	assert.ErrorContains(t, err, "flodial-easy-locked")
	for _, preset := range []string{"default", "flodial"} {
		c, err := Preset(preset)
		require.NoError(t, err)
		require.NoError(t, c.Validate(), preset)
		task, err := tasks.New(c.Task, c.TaskConfig)
		require.NoError(t, err)
		s := &study{cfg: c, task: task}
		assert.NoError(t, s.loadBase(), preset)
	}
}

// A base build reports its rows per source: the base greedy and sampled,
// the source's demonstrator, random, strong and the best constant.
func TestEvaluateBase(t *testing.T) {
	cfg := FloDialEasyLocked()
	p, err := LoadShipped("flodial-easy-locked")
	require.NoError(t, err)
	rows, err := EvaluateBase(t.Context(), p, cfg, 6, nil)
	require.NoError(t, err)
	require.Len(t, rows, 12)
	assert.Equal(t, "careful", rows[0].Source)
	assert.Equal(t, "base, greedy", rows[0].Policy)
	assert.Equal(t, "scripted strong", rows[2].Policy)
	assert.Equal(t, "scripted locked(0.03,0.03)", rows[8].Policy)
	assert.Contains(t, BaseTable(rows), "best constant")
}

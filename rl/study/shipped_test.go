package study

import (
	"io/fs"
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
	assert.Subset(t, ShippedNames(), []string{"flodial-easy-locked", "flodial-easy-locked-bt006", "flodial-easy-locked-bt015", "mediq-locked", "flodial-hard-locked"})
	files, err := fs.Glob(shipped, "bases/*")
	require.NoError(t, err)
	assert.Len(t, files, len(ShippedNames()), "every file in bases/ is a recipe's")
	for _, name := range ShippedNames() {
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
	_, err = LoadShipped("nope")
	assert.ErrorContains(t, err, "flodial-easy-locked")
	assert.ElementsMatch(t, BaseNames(), append(ShippedNames(), CandidateNames()...))
	for _, name := range CandidateNames() {
		_, err = LoadShipped(name)
		assert.ErrorContains(t, err, "not shipped yet", name)
		assert.Error(t, Base{Shipped: name}.validate(), name)
	}
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
	var names []string
	for _, r := range rows {
		names = append(names, r.Source+": "+r.Policy)
	}
	assert.Equal(t, []string{"careful: base, greedy", "careful: base, sampled", "careful: scripted strong",
		"careful: scripted random", "careful: best constant (fault2)", "hasty: base, greedy", "hasty: base, sampled",
		"hasty: scripted locked(0.03,0.02)", "hasty: scripted random", "hasty: scripted strong",
		"hasty: best constant (fault2)"}, names)
	assert.Contains(t, BaseTable(rows), "best constant")
}

package act

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks/textworld"
)

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"preset", func(c *Config) { c.Preset = "huge" }, "preset"},
		{"games", func(c *Config) { c.Games = 0 }, "games"},
		{"share", func(c *Config) { c.InitShare = 1.5 }, "init_share"},
		{"k", func(c *Config) { c.Collect.K = 0 }, "collect"},
		{"reading", func(c *Config) { c.ACT.Shaping.AdmReading = "both" }, "adm_reading"},
		{"row", func(c *Config) { c.Rows = []string{"il", "dagger"} }, "dagger"},
		{"split", func(c *Config) { c.Split = "dev" }, "split must be test or val"},
		{"val and ood", func(c *Config) { c.Split = "val" }, "ood_episodes"},
	}
	require.NoError(t, DefaultConfig().Validate())
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			c.edit(&cfg)
			assert.ErrorContains(t, cfg.Validate(), c.want)
		})
	}
	cfg := DefaultConfig()
	cfg.Rows = []string{RowRLwACT}
	assert.True(t, cfg.needs(RowACT), "rl w/ act builds on act")
	assert.False(t, cfg.needs(RowIL))
}

func TestNewEnvAndAdmits(t *testing.T) {
	_, err := NewEnv("minecraft", nil)
	assert.Error(t, err)
	_, err = NewEnv("alfworld", []byte(`{"Rooms": 3}`))
	assert.Error(t, err, "unknown field")
	for _, name := range []string{"alfworld", "webshop", "sciworld"} {
		env, err := NewEnv(name, nil)
		require.NoError(t, err, name)
		pairs, err := env.ExpertPairs(textworld.Train, 0, 1, textworld.History)
		require.NoError(t, err)
		for _, p := range pairs {
			assert.True(t, env.Admits(p.State, p.Expert), "%s: the expert's action is admissible", name)
			assert.True(t, env.wellFormed(p.Expert), "%s: and well formed", name)
		}
	}
	web, err := NewEnv("webshop", nil)
	require.NoError(t, err)
	pairs, err := web.ExpertPairs(textworld.Train, 0, 1, textworld.History)
	require.NoError(t, err)
	search := words(web.Vocab, "search [ red ]")
	assert.True(t, web.Admits(pairs[0].State, search), "any search on the search page")
	assert.False(t, web.Admits(pairs[1].State, search), "but not on the results page")
}

func TestShuffledIsASeededPermutation(t *testing.T) {
	xs := []int{0, 1, 2, 3, 4, 5, 6, 7}
	a, b := shuffled(xs, 4), shuffled(xs, 4)
	assert.Equal(t, a, b, "same seed, same order")
	assert.ElementsMatch(t, xs, a)
	assert.NotEqual(t, xs, a)
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7}, xs, "the input is untouched")
	assert.Empty(t, shuffled([]int{}, 1))
}

// TestTable1Resolution: act-table1 is issue 21's item 6: seeds 11–15,
// ALFWorld played on every ID and OOD test game, WebShop on 100, and
// each environment's held-out next action on about 600 expert states.
func TestTable1Resolution(t *testing.T) {
	s := Table1Preset()
	require.NoError(t, s.Validate())
	assert.Equal(t, []uint64{11, 12, 13, 14, 15}, s.Seeds)
	require.Len(t, s.Runs, 3)
	for _, c := range s.Runs {
		env, err := NewEnv(c.Env, c.EnvConfig)
		require.NoError(t, err)
		switch c.Env {
		case "alfworld":
			assert.Equal(t, 140, env.Sizes.Test)
			assert.Equal(t, env.Sizes.Test, c.Episodes, "every ID game")
			assert.Equal(t, env.Sizes.TestOOD, c.OODEpisodes, "every OOD game")
		case "webshop":
			assert.Equal(t, 100, c.Episodes)
		}
		held, err := env.ExpertPairs(textworld.Test, 0, c.HeldOut, c.Collect.History)
		require.NoError(t, err)
		t.Logf("%s: %d held-out games, %d states", c.Env, c.HeldOut, len(held))
		assert.InDelta(t, 600, len(held), 50, "%s: about 600 held-out states", c.Env)
	}
}

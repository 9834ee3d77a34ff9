package pe

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
)

func TestRegisteredSettings(t *testing.T) {
	for name, want := range map[string]struct{ dims, focus, queries, maxTokens int }{
		"pe-g-s2": {6, 2, 5, 165},
		"pe-g-s3": {6, 3, 5, 170},
		"pe-f-d6": {6, 0, 6, 169},
		"pe-f-d8": {8, 0, 6, 205},
	} {
		t.Run(name, func(t *testing.T) {
			// Fewer particles keep the test fast; they change nothing checked.
			task, err := tasks.New(name, json.RawMessage(`{"Particles": 64}`))
			require.NoError(t, err)
			assert.Equal(t, name, task.Name())
			c := task.(*Task).Config()
			assert.Equal(t, want.dims, c.Dims)
			assert.Equal(t, want.focus, c.Focus)
			assert.Equal(t, want.queries, c.Queries)
			assert.Equal(t, 64, c.Particles)
			assert.Equal(t, "spec", c.Critiques)
			assert.Equal(t, "binary", c.Reward)
			assert.Equal(t, 0.88, c.Threshold)
			assert.Equal(t, want.maxTokens, task.MaxTokens())
			assert.LessOrEqual(t, task.Vocab().Size(), 40)
			def, err := DefaultConfig(name)
			require.NoError(t, err)
			require.NoError(t, def.Validate())
		})
	}
	_, err := DefaultConfig("pe-x")
	assert.Error(t, err)
}

func TestConfigOverrides(t *testing.T) {
	task, err := tasks.New("pe-g-s3", json.RawMessage(`{"Particles": 64, "Critiques": "consistent", "FreezePenalty": true, "Reward": "cosine", "Threshold": 0.9}`))
	require.NoError(t, err)
	c := task.(*Task).Config()
	assert.Equal(t, "consistent", c.Critiques)
	assert.True(t, c.FreezePenalty)
	assert.Equal(t, "cosine", c.Reward)
	assert.Equal(t, 0.9, c.Threshold)
	for _, bad := range []string{
		`{"Bogus": 1}`,
		`{"Particles": "many"}`,
		`{"Particles": 64} {}`,
	} {
		_, err := tasks.New("pe-g-s3", json.RawMessage(bad))
		assert.Error(t, err, bad)
	}
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		mut  func(*Config)
	}{
		{"one attribute", func(c *Config) { c.Dims = 1 }},
		{"too many attributes", func(c *Config) { c.Dims = 13 }},
		{"focus of one", func(c *Config) { c.Focus = 1 }},
		{"focus of all (use 0)", func(c *Config) { c.Focus = 6 }},
		{"negative focus", func(c *Config) { c.Focus = -1 }},
		{"one movie", func(c *Config) { c.Movies = 1 }},
		{"too many movies", func(c *Config) { c.Movies = 17 }},
		{"no scores", func(c *Config) { c.ScoreMax = 0 }},
		{"negative spread", func(c *Config) { c.ScoreSpread = -1 }},
		{"NaN spread", func(c *Config) { c.ScoreSpread = nan() }},
		{"liked 0", func(c *Config) { c.LikedMin = 0 }},
		{"liked min > max", func(c *Config) { c.LikedMin, c.LikedMax = 3, 2 }},
		{"liked > dims", func(c *Config) { c.LikedMax = 7 }},
		{"liked low > 1", func(c *Config) { c.LikedLow = 1.5 }},
		{"other high < 0", func(c *Config) { c.OtherHigh = -0.1 }},
		{"no queries", func(c *Config) { c.Queries = 0 }},
		{"too many queries", func(c *Config) { c.Queries = 11 }},
		{"more informative than queries", func(c *Config) { c.MinInformative = 1 << 20 }},
		{"one level", func(c *Config) { c.GuessLevels = 1 }},
		{"threshold 1", func(c *Config) { c.Threshold = 1 }},
		{"threshold 0", func(c *Config) { c.Threshold = 0 }},
		{"equal tolerance 1", func(c *Config) { c.EqualTol = 1 }},
		{"reward", func(c *Config) { c.Reward = "shaped" }},
		{"critiques", func(c *Config) { c.Critiques = "paper" }},
		{"one particle", func(c *Config) { c.Particles = 1 }},
		{"too many particles", func(c *Config) { c.Particles = 1<<16 + 1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := DefaultConfig("pe-g-s3")
			require.NoError(t, err)
			tc.mut(&c)
			assert.Error(t, c.Validate())
			_, err = New("x", c)
			assert.Error(t, err)
		})
	}
	// More query rounds than distinct queries.
	c := tinyConfig()
	c.Movies, c.Focus, c.Dims, c.LikedMax = 2, 0, 2, 2
	c.Queries = 2
	assert.Error(t, c.Validate())
	c.Queries = 1
	assert.NoError(t, c.Validate())
}

// A table with too few informative queries is redrawn; an impossible demand
// is an error, not a hang.
func TestImpossibleTable(t *testing.T) {
	c := tinyConfig()
	c.ScoreSpread = 0 // every movie's row is constant: every pair dominated
	c.MinInformative = 1
	task := newTask(t, c)
	_, err := task.NewEpisode(tasks.Test, 0)
	assert.Error(t, err)
}

func nan() float64 { z := 0.0; return z / z }

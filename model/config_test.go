package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConfigValidation(t *testing.T) {
	good, err := NewConfig("tiny", 40, 16)
	require.NoError(t, err)
	for name, mutate := range map[string]func(*Config){
		"vocab":    func(c *Config) { c.Vocab = 0 },
		"context":  func(c *Config) { c.Context = -1 },
		"heads":    func(c *Config) { c.Heads = 3 },
		"layers":   func(c *Config) { c.Layers = 0 },
		"mlp":      func(c *Config) { c.MLP = 0 },
		"init_std": func(c *Config) { c.InitStd = 0 },
		"no head":  func(c *Config) { c.LMHead = false },
	} {
		c := good
		mutate(&c)
		assert.Error(t, c.Validate(), name)
	}
	_, err = NewConfig("huge", 40, 16)
	assert.ErrorContains(t, err, "unknown model preset")
}

// NumParams is the closed-form count; it must equal what NewParams allocates.
func TestNumParamsMatchesStore(t *testing.T) {
	for _, preset := range PresetNames() {
		c, err := NewConfig(preset, 57, 33)
		require.NoError(t, err)
		for _, value := range []bool{false, true} {
			c.ValueHead = value
			s, err := NewParams(c)
			require.NoError(t, err)
			assert.Equal(t, c.NumParams(), s.NumParams(), preset)
		}
	}
	// The tiny preset by hand: V=57, T=33, C=32, M=64, L=2.
	// embeddings 57·32 + 33·32 = 2880; per layer 64 + 3168 + 1056 + 64 +
	// 2112 + 2080 = 8544, two layers 17088; ln_f 64; lm_head 32·57 = 1824.
	c, _ := NewConfig("tiny", 57, 33)
	assert.Equal(t, 2880+17088+64+1824, c.NumParams())
}

func TestInitIsGPT2Style(t *testing.T) {
	c, err := NewConfig("small", 50, 64)
	require.NoError(t, err)
	s, err := NewParams(c)
	require.NoError(t, err)
	s.Init(3)
	std := func(name string) float64 {
		p, ok := s.Get(name)
		require.True(t, ok, name)
		sum := 0.0
		for _, x := range p.Data() {
			sum += float64(x) * float64(x)
		}
		return sum / float64(p.Size())
	}
	assert.InDelta(t, 0.02*0.02, std(Layer(0).AttnWeight), 0.0001)
	assert.InDelta(t, 0.01*0.01, std(Layer(1).ProjWeight), 0.00005) // 0.02/√4
	g, _ := s.Get(Layer(1).Norm2Weight)
	assert.Equal(t, float32(1), g.Data()[7])
	b, _ := s.Get(Layer(1).FCBias)
	assert.Equal(t, float32(0), b.Data()[3])
}

// The two critic layouts: a shared critic is the policy plus C+1 value-head
// parameters; a separate critic swaps the LM head for the value head.
func TestCriticConfigs(t *testing.T) {
	p, err := NewConfig("small", 60, 256)
	require.NoError(t, err)
	shared, separate := p.WithValueHead(), p.Critic()
	assert.True(t, shared.LMHead && shared.ValueHead)
	assert.True(t, !separate.LMHead && separate.ValueHead)
	assert.Equal(t, p.NumParams()+p.DModel+1, shared.NumParams())
	assert.Equal(t, p.NumParams()-p.DModel*p.Vocab+p.DModel+1, separate.NumParams())
	assert.NoError(t, separate.Validate())
}

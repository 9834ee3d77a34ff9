package model

import (
	"fmt"
	"sort"
	"strings"
)

// Config is the shape of a policy (or critic) network.
type Config struct {
	Vocab   int `json:"vocab"`   // token vocabulary size (from the task)
	Context int `json:"context"` // maximum sequence length (positions)
	DModel  int `json:"d_model"` // residual width C
	Layers  int `json:"layers"`  // transformer blocks
	Heads   int `json:"heads"`   // attention heads; must divide DModel
	MLP     int `json:"mlp"`     // hidden width of each block's MLP
	// InitStd is the standard deviation of the GPT-2 initialisation (0.02);
	// residual output projections get InitStd/√(2·Layers), positions InitStd/2.
	InitStd float64 `json:"init_std"`
	// LMHead and ValueHead choose the heads: a policy has the LM head (and a
	// value head when the critic shares its trunk), a separate critic only
	// the value head.
	LMHead    bool `json:"lm_head"`
	ValueHead bool `json:"value_head"`
}

// Preset is a named architecture; the task fills in Vocab and Context.
type Preset struct {
	DModel, Layers, Heads, MLP int
}

// Presets: tiny for tests, small for experiments (the default), base for
// the benchmarks.
var Presets = map[string]Preset{
	"tiny":  {DModel: 32, Layers: 2, Heads: 2, MLP: 64},
	"small": {DModel: 64, Layers: 2, Heads: 4, MLP: 256},
	"base":  {DModel: 128, Layers: 4, Heads: 4, MLP: 512},
}

// PresetNames lists the presets, sorted.
func PresetNames() []string {
	out := make([]string, 0, len(Presets))
	for n := range Presets {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// NewConfig builds a policy config (LM head, no value head) from a preset.
func NewConfig(preset string, vocab, context int) (Config, error) {
	p, ok := Presets[preset]
	if !ok {
		return Config{}, fmt.Errorf("unknown model preset %q (known: %s)", preset, strings.Join(PresetNames(), ", "))
	}
	c := Config{Vocab: vocab, Context: context, DModel: p.DModel, Layers: p.Layers, Heads: p.Heads, MLP: p.MLP,
		InitStd: 0.02, LMHead: true}
	return c, c.Validate()
}

// Validate reports the first problem with the config, if any.
func (c Config) Validate() error {
	switch {
	case c.Vocab < 1:
		return fmt.Errorf("model config: vocab must be ≥ 1, got %d", c.Vocab)
	case c.Context < 1:
		return fmt.Errorf("model config: context must be ≥ 1, got %d", c.Context)
	case c.DModel < 1:
		return fmt.Errorf("model config: d_model must be ≥ 1, got %d", c.DModel)
	case c.Layers < 1:
		return fmt.Errorf("model config: layers must be ≥ 1, got %d", c.Layers)
	case c.Heads < 1:
		return fmt.Errorf("model config: heads must be ≥ 1, got %d", c.Heads)
	case c.DModel%c.Heads != 0:
		return fmt.Errorf("model config: heads (%d) must divide d_model (%d)", c.Heads, c.DModel)
	case c.MLP < 1:
		return fmt.Errorf("model config: mlp must be ≥ 1, got %d", c.MLP)
	case !(c.InitStd > 0):
		return fmt.Errorf("model config: init_std must be > 0, got %v", c.InitStd)
	case !c.LMHead && !c.ValueHead:
		return fmt.Errorf("model config: a network needs an LM head, a value head or both")
	}
	return nil
}

// HeadSize is DModel/Heads.
func (c Config) HeadSize() int { return c.DModel / c.Heads }

// NumParams counts the scalars the config's parameters hold.
func (c Config) NumParams() int {
	C, M := c.DModel, c.MLP
	n := c.Vocab*C + c.Context*C // token and position embeddings
	perLayer := 2*C +            // ln_1
		C*3*C + 3*C + // attn.c_attn
		C*C + C + // attn.c_proj
		2*C + // ln_2
		C*M + M + // mlp.c_fc
		M*C + C // mlp.c_proj
	n += c.Layers * perLayer
	n += 2 * C // ln_f
	if c.LMHead {
		n += C * c.Vocab
	}
	if c.ValueHead {
		n += C + 1
	}
	return n
}

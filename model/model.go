package model

import (
	"fmt"

	"arew/engine"
)

// LayerNormEps is the ε of every LayerNorm (nn.LayerNorm's default).
const LayerNormEps = 1e-5

// Model is one network — a policy (LM head, maybe a shared value head) or a
// separate critic (value head only) — and its parameters. Params is the
// only copy of the weights: graphs bind it, decoders read it, the optimiser
// updates it in place.
type Model struct {
	Config Config
	Params *engine.ParamStore
}

// New builds a model with GPT-2's initialisation drawn from seed (see
// NewParams).
func New(cfg Config, seed uint64) (*Model, error) {
	s, err := NewParams(cfg)
	if err != nil {
		return nil, err
	}
	s.Init(seed)
	return &Model{Config: cfg, Params: s}, nil
}

// WithValueHead returns c with a value head added to its trunk: the
// policy of `--critic shared`.
func (c Config) WithValueHead() Config {
	c.ValueHead = true
	return c
}

// Critic returns the config of a separate critic of c's architecture: the
// same trunk, a value head, no LM head (`--critic separate`, as verl does).
func (c Config) Critic() Config {
	c.LMHead, c.ValueHead = false, true
	return c
}

// param returns the named parameter's data; the names come from this
// package, so a miss is a bug.
func (m *Model) param(name string) []float32 {
	p, ok := m.Params.Get(name)
	if !ok {
		panic(fmt.Sprintf("model: no parameter %q", name))
	}
	return p.Data()
}

// Clone is an independent copy of m: the same config and weights in new
// memory (a KL reference, a stage's starting point).
func (m *Model) Clone() (*Model, error) {
	c, err := New(m.Config, 0)
	if err != nil {
		return nil, err
	}
	src := m.Params.Params()
	for i, p := range c.Params.Params() {
		copy(p.Data(), src[i].Data())
	}
	return c, nil
}

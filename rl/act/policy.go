package act

import (
	"fmt"
	"math/rand/v2"

	"arew/model"
	"arew/tasks"
	"arew/tasks/textworld"
)

// Generator continues prompts with a model, token by token on a one-slot
// KV-cache decoder: greedily, or sampled at a temperature (log π is not
// needed here; the trainers recompute it), free or under a Constraint.
// Not safe for concurrent use.
type Generator struct {
	m       *model.Model
	dec     *model.Decoder
	smp     *model.Sampler
	scratch []float32 // the masked logits
}

// NewGenerator prepares a generator; temperature 0 means greedy.
func NewGenerator(m *model.Model, temperature float64) (*Generator, error) {
	if !m.Config.LMHead {
		return nil, fmt.Errorf("generator: the model has no LM head")
	}
	smp := &model.Sampler{Greedy: temperature == 0, Temperature: temperature}
	if err := smp.Validate(); err != nil {
		return nil, fmt.Errorf("generator: %w", err)
	}
	dec, err := m.NewDecoder(1)
	if err != nil {
		return nil, fmt.Errorf("generator: %w", err)
	}
	return &Generator{m: m, dec: dec, smp: smp, scratch: make([]float32, m.Config.Vocab)}, nil
}

// Generate continues prompt with at most maxTokens tokens and returns
// those before EOT; finished is false when it stopped at maxTokens without
// EOT. A prompt that leaves no room for maxTokens in the model's context is
// an error. rng may be nil when greedy.
//
// Under a constraint c (nil: free), each token is drawn from the model's
// distribution renormalised over c.Next(tokens so far) (trie.go): greedy
// takes the best allowed token, sampling draws from the renormalised
// softmax. A step where c allows nothing is decoded free.
func (g *Generator) Generate(prompt []tasks.Token, c Constraint, maxTokens int, rng *rand.Rand) (out []tasks.Token, finished bool, err error) {
	if len(prompt) == 0 || maxTokens < 1 {
		return nil, false, fmt.Errorf("generate: need a prompt and maxTokens ≥ 1, got %d tokens and %d", len(prompt), maxTokens)
	}
	if len(prompt)+maxTokens > g.m.Config.Context {
		return nil, false, fmt.Errorf("generate: a prompt of %d tokens and %d to generate exceed the context %d", len(prompt), maxTokens, g.m.Config.Context)
	}
	if err := g.dec.Reset(0); err != nil {
		return nil, false, err
	}
	logits, err := g.dec.Prefill(0, prompt)
	if err != nil {
		return nil, false, fmt.Errorf("generate: %w", err)
	}
	feed := func(tok tasks.Token) ([]float32, error) { return g.dec.Step([]int{0}, []int32{tok}) }
	out, finished, err = decode(logits, feed, g.smp, c, maxTokens, rng, g.scratch)
	if err != nil {
		return nil, false, fmt.Errorf("generate: %w", err)
	}
	return out, finished, nil
}

// Policy is a model acting in a text environment: shown State.Tokens, it
// generates an action of at most MaxAction tokens, under the constraint
// Constrain gives at the state (nil: free). A state too long for the
// context drops its oldest history turns; one that still does not fit,
// and an action cut off before EOT, is played as the empty action
// (answered "nothing happens ."), and counted in Failures. Steps counts
// Act's actions and Malformed those that WellFormed (when set) rejects,
// the empty ones included.
type Policy struct {
	Label     string
	Gen       *Generator
	Vocab     *tasks.Vocab
	MaxAction int
	Constrain func(s textworld.State) Constraint
	// WellFormed is the grammar check of an action (Env.wellFormed).
	WellFormed func(action []tasks.Token) bool
	Failures   int
	Steps      int
	Malformed  int
}

// NewPolicy wraps a model as a policy (temperature 0: greedy).
func NewPolicy(label string, m *model.Model, v *tasks.Vocab, maxAction int, temperature float64) (*Policy, error) {
	g, err := NewGenerator(m, temperature)
	if err != nil {
		return nil, err
	}
	if maxAction < 1 {
		return nil, fmt.Errorf("policy: max action %d must be ≥ 1", maxAction)
	}
	return &Policy{Label: label, Gen: g, Vocab: v, MaxAction: maxAction}, nil
}

func (p *Policy) Name() string { return p.Label }

// Prompt is s rendered as a prompt that fits the context, or nil.
func (p *Policy) Prompt(s textworld.State) []tasks.Token {
	for {
		prompt := s.Tokens(p.Vocab)
		if len(prompt)+p.MaxAction+1 <= p.Gen.m.Config.Context {
			return prompt
		}
		if len(s.History) == 0 {
			return nil
		}
		s.History = s.History[1:]
	}
}

// Act generates the action for s (EOT excluded).
func (p *Policy) Act(_ textworld.Env, s textworld.State, rng *rand.Rand) []tasks.Token {
	a, ok := p.Propose(s, rng)
	p.Steps++
	if !ok {
		a = nil
		p.Failures++
	}
	if p.WellFormed != nil && !p.WellFormed(a) {
		p.Malformed++
	}
	return a
}

// Propose generates an action for s; ok is false when the state does not
// fit or the action did not end with EOT within MaxAction+1 tokens.
func (p *Policy) Propose(s textworld.State, rng *rand.Rand) ([]tasks.Token, bool) {
	prompt := p.Prompt(s)
	if prompt == nil {
		return nil, false
	}
	var c Constraint
	if p.Constrain != nil {
		c = p.Constrain(s)
	}
	a, finished, err := p.Gen.Generate(prompt, c, p.MaxAction+1, rng)
	if err != nil || !finished {
		return nil, false
	}
	return a, true
}

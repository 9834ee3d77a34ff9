package optim

import (
	"math/rand/v2"
	"testing"

	"arew/engine"
)

// BenchmarkPPOClip: the PPO loss and gradient over 32 sequences of up to 512
// tokens; bytes are the three float64 inputs read per token.
func BenchmarkPPOClip(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	batch := randomBatch(rng, 32, 512)
	logp, old, adv := policyInputs(rng, batch.NumTokens())
	cfg := PPOConfig{ClipLow: 0.2, ClipHigh: 0.28, DualClip: 3, Agg: Agg{Mode: TokenMean}}
	b.SetBytes(int64(24 * batch.NumTokens()))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := PPOClip(logp, old, adv, batch, cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAdamWStep: one AdamW step over 1M parameters; bytes are the four
// float32 arrays (value, grad, m, v) read per parameter.
func BenchmarkAdamWStep(b *testing.B) {
	s := engine.NewParamStore()
	if _, err := s.Add("w", []int{1024, 1024}, engine.Normal(0.02)); err != nil {
		b.Fatal(err)
	}
	s.Init(1)
	p := s.Params()[0]
	for i := range p.Grad {
		p.Grad[i] = 1e-3
	}
	o, err := NewAdamW(s.Params(), AdamWConfig{Beta1: 0.9, Beta2: 0.95, Eps: 1e-8, WeightDecay: 0.1})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(16 * p.Size()))
	b.ReportAllocs()
	for b.Loop() {
		if err := o.Step(1e-4); err != nil {
			b.Fatal(err)
		}
	}
}

package rl

import "math/rand/v2"

// Every random choice of a run draws from its own stream derived from the
// run seed, so adding a draw to one component never shifts another's, and a
// result depends only on (seed, what it is, which update, which item) —
// never on worker count or scheduling.
const (
	streamRollout  uint64 = iota + 1 // (update, episode index) → the episode's sampling
	streamShuffle                    // (update) → the minibatch order of every epoch
	streamCritique                   // (update) → the AREW critique perturbation
	streamCritic                     // () → the separate critic's initial weights
	streamSFT                        // (epoch) → SFT's minibatch order
	streamEval                       // (episode index) → sampled evaluation
	streamNoise                      // (split, instance) → a noisy demonstration's noise (DemoNoise)
	streamDAgger                     // (round, instance) → a DAgger round's mixture and the learner's sampling
)

// mix64 is SplitMix64's finaliser: a bijection of uint64 whose output bits
// all depend on all input bits.
func mix64(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9
	x = (x ^ (x >> 27)) * 0x94D049BB133111EB
	return x ^ (x >> 31)
}

// deriveSeed hashes (seed, stream, parts…) into one 64-bit seed.
func deriveSeed(seed, stream uint64, parts ...uint64) uint64 {
	h := mix64(seed ^ mix64(stream))
	for _, p := range parts {
		h = mix64(h ^ p)
	}
	return h
}

// derive is a generator for one component: a PCG seeded by
// deriveSeed(seed, stream, parts…).
func derive(seed, stream uint64, parts ...uint64) *rand.Rand {
	h := deriveSeed(seed, stream, parts...)
	return rand.New(rand.NewPCG(h, mix64(h)))
}

package kernels

import (
	"fmt"
	"math"
)

// GAERef is the reference Generalized Advantage Estimation on a packed batch.
// rewards, values, adv and ret are (T) float32; p holds B trajectories.
//
// Over the agent tokens of one trajectory, taken backwards, with V' the value
// of the next agent token (0 after the last one: the episode ended) and A' the
// advantage there (0 after the last one):
//
//	δ_t = r_t + γ·V' − V_t
//	A_t = δ_t + γ·λ·A'
//	R_t = A_t + V_t               (the critic's target)
//
// Observation tokens (mask 0) are skipped: V' and A' carry over them
// unchanged, so the result equals GAE on the trajectory with those tokens cut
// out (verl's multi-turn GAE). adv and ret are 0 on observation tokens.
//
// Rewards must be 0 on observation tokens: GAE skips them, so a reward there
// would be lost silently (verl drops it); here it is an error instead, before
// any output is written. γ and λ must lie in [0, 1]. The recursion runs in
// float64. A NaN in a reward or value makes that trajectory's earlier agent
// tokens NaN and leaves every other trajectory alone.
//
// adv is not whitened; see MaskedWhitenRef for verl's whitening.
func GAERef(p Packed, rewards, values []float32, gamma, lambda float64, adv, ret []float32) error {
	if err := CheckGAEArgs(p, rewards, values, gamma, lambda, adv, ret); err != nil {
		return err
	}
	gaeRange(p, rewards, values, gamma, lambda, adv, ret, 0, p.NumTrajectories())
	return nil
}

// gaeRange runs the recursion over trajectories [b0, b1); it writes only
// their tokens, so disjoint ranges may run concurrently.
func gaeRange(p Packed, rewards, values []float32, gamma, lambda float64, adv, ret []float32, b0, b1 int) {
	gl := gamma * lambda
	for b := b0; b < b1; b++ {
		lo, hi := p.Span(b)
		nextV, nextA := 0.0, 0.0
		for t := hi - 1; t >= lo; t-- {
			if p.Mask[t] == 0 {
				adv[t], ret[t] = 0, 0
				continue
			}
			v := float64(values[t])
			delta := float64(rewards[t]) + gamma*nextV - v
			a := delta + gl*nextA
			adv[t] = float32(a)
			ret[t] = float32(a + v)
			nextV, nextA = v, a
		}
	}
}

// CheckGAEArgs is GAE's argument check, exported for the GPU kernels.
func CheckGAEArgs(p Packed, rewards, values []float32, gamma, lambda float64, adv, ret []float32) error {
	const k = "gae"
	if err := p.Validate(); err != nil {
		return fmt.Errorf("%s: %w", k, err)
	}
	if !(gamma >= 0 && gamma <= 1) {
		return fmt.Errorf("%s: gamma = %v, want a number in [0, 1]", k, gamma)
	}
	if !(lambda >= 0 && lambda <= 1) {
		return fmt.Errorf("%s: lambda = %v, want a number in [0, 1]", k, lambda)
	}
	for _, buf := range []struct {
		name string
		x    []float32
	}{{"rewards", rewards}, {"values", values}, {"adv", adv}, {"ret", ret}} {
		if err := p.checkTokens(k, buf.name, buf.x); err != nil {
			return err
		}
	}
	if t := firstObservationReward(p.Mask, rewards); t >= 0 {
		return fmt.Errorf("%s: reward %v on observation token %d; GAE skips observation tokens, put it on an agent token (usually the trajectory's last)", k, rewards[t], t)
	}
	return nil
}

// firstObservationReward is the first token with mask 0 and a reward other
// than ±0 (NaN included), or −1. The common, clean case is one branch-free
// pass: OR together the reward bits (sign cleared) of the observation tokens.
func firstObservationReward(mask []uint8, rewards []float32) int {
	rewards = rewards[:len(mask)]
	var acc uint32
	for t, m := range mask {
		acc |= math.Float32bits(rewards[t]) & 0x7fffffff & (uint32(m) - 1) // m = 0 keeps the bits, m = 1 clears them
	}
	if acc == 0 {
		return -1
	}
	for t, m := range mask {
		if m == 0 && rewards[t] != 0 { // NaN != 0 too
			return t
		}
	}
	return -1
}

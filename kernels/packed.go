package kernels

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Packed is a batch of B trajectories laid end to end in one flat array of T
// tokens: the layout every advantage kernel takes, chosen because it is what a
// GPU kernel wants (no padding, one block per trajectory, offsets read once).
//
//	Offsets is (B+1) int32: Offsets[0] = 0, Offsets[B] = T, non-decreasing;
//	        trajectory b owns the tokens [Offsets[b], Offsets[b+1]) (may be empty).
//	Mask    is (T) uint8:   1 = agent token (sampled by the policy: it gets an
//	        advantage and a loss), 0 = observation or prompt token (skipped by
//	        every kernel, which writes 0 there).
//
// Per-token arrays (rewards, values, advantages) are (T) float32 in the same
// order. The kernels re-check a Packed (Validate, O(B+T)) before any work, so a
// literal Packed{...} is as safe as one from NewPacked.
type Packed struct {
	Offsets []int32
	Mask    []uint8
}

// NewPacked returns the Packed view of offsets and mask after validating it.
func NewPacked(offsets []int32, mask []uint8) (Packed, error) {
	p := Packed{Offsets: offsets, Mask: mask}
	if err := p.Validate(); err != nil {
		return Packed{}, err
	}
	return p, nil
}

// Validate checks the layout: len(Offsets) = B+1 ≥ 1, Offsets[0] = 0,
// non-decreasing, Offsets[B] = len(Mask), and every mask value 0 or 1.
func (p Packed) Validate() error {
	if len(p.Offsets) == 0 {
		return fmt.Errorf("packed: offsets is empty; it must hold B+1 ≥ 1 entries (use []int32{0} for B = 0)")
	}
	if p.Offsets[0] != 0 {
		return fmt.Errorf("packed: offsets[0] = %d, want 0", p.Offsets[0])
	}
	for b := 1; b < len(p.Offsets); b++ {
		if p.Offsets[b] < p.Offsets[b-1] {
			return fmt.Errorf("packed: offsets[%d] = %d < offsets[%d] = %d: trajectory %d has a negative length", b, p.Offsets[b], b-1, p.Offsets[b-1], b-1)
		}
	}
	if last := p.Offsets[len(p.Offsets)-1]; int(last) != len(p.Mask) {
		return fmt.Errorf("packed: offsets[B] = %d but the mask has %d tokens", last, len(p.Mask))
	}
	if t := firstNonBinary(p.Mask); t >= 0 {
		return fmt.Errorf("packed: mask[%d] = %d, want 0 (observation) or 1 (agent)", t, p.Mask[t])
	}
	return nil
}

// firstNonBinary is the index of the first mask byte other than 0 or 1, or
// −1. It tests 8 bytes per load (a byte is > 1 iff it has a bit of 0xFE set),
// because every kernel call validates its mask.
func firstNonBinary(mask []uint8) int {
	i := 0
	for ; i+8 <= len(mask); i += 8 {
		if binary.LittleEndian.Uint64(mask[i:])&0xFEFEFEFEFEFEFEFE != 0 {
			break
		}
	}
	for ; i < len(mask); i++ {
		if mask[i] > 1 {
			return i
		}
	}
	return -1
}

// NumTrajectories is B.
func (p Packed) NumTrajectories() int { return len(p.Offsets) - 1 }

// NumTokens is T.
func (p Packed) NumTokens() int { return len(p.Mask) }

// AgentTokens counts the agent tokens (what a global token count for the
// token-mean loss sums over micro-batches).
func (p Packed) AgentTokens() int {
	n := 0
	for _, m := range p.Mask {
		n += int(m)
	}
	return n
}

// TrajectoryAgentTokens counts the agent tokens of trajectory b.
func (p Packed) TrajectoryAgentTokens(b int) int {
	n := 0
	for _, m := range p.Mask[p.Offsets[b]:p.Offsets[b+1]] {
		n += int(m)
	}
	return n
}

// ActiveTrajectories counts the trajectories with at least one agent token
// (what a global sequence count sums over micro-batches).
func (p Packed) ActiveTrajectories() int {
	n := 0
	for b := 0; b+1 < len(p.Offsets); b++ {
		if p.TrajectoryAgentTokens(b) > 0 {
			n++
		}
	}
	return n
}

// Span is the half-open token range [lo, hi) of trajectory b.
func (p Packed) Span(b int) (lo, hi int) { return int(p.Offsets[b]), int(p.Offsets[b+1]) }

// checkTokens reports a per-token buffer whose length is not T.
func (p Packed) checkTokens(kernel, name string, x []float32) error {
	if len(x) != len(p.Mask) {
		return fmt.Errorf("%s: %s has %d entries, want T = %d", kernel, name, len(x), len(p.Mask))
	}
	return nil
}

// checkTrajectories reports a per-trajectory buffer whose length is not B.
func (p Packed) checkTrajectories(kernel, name string, n int) error {
	if n != p.NumTrajectories() {
		return fmt.Errorf("%s: %s has %d entries, want B = %d", kernel, name, n, p.NumTrajectories())
	}
	return nil
}

// BroadcastRef writes perTraj[b] to every agent token of trajectory b and 0 to
// every observation token: out (T) from perTraj (B). This is how an outcome
// advantage (GRPO, GSPO) becomes a per-token one.
func BroadcastRef(p Packed, perTraj, out []float32) error {
	if err := checkBroadcastArgs(p, perTraj, out); err != nil {
		return err
	}
	broadcastRange(p, perTraj, out, 0, p.NumTrajectories())
	return nil
}

func checkBroadcastArgs(p Packed, perTraj, out []float32) error {
	if err := p.Validate(); err != nil {
		return fmt.Errorf("broadcast: %w", err)
	}
	if err := p.checkTrajectories("broadcast", "perTraj", len(perTraj)); err != nil {
		return err
	}
	return p.checkTokens("broadcast", "out", out)
}

// broadcastRange is BroadcastRef's loop over trajectories [b0, b1).
func broadcastRange(p Packed, perTraj, out []float32, b0, b1 int) {
	for b := b0; b < b1; b++ {
		lo, hi := p.Span(b)
		a := perTraj[b]
		for t := lo; t < hi; t++ {
			// A multiply would turn 0·Inf into NaN on observation tokens; a
			// select keeps them exactly 0 whatever the advantage.
			if p.Mask[t] == 1 {
				out[t] = a
			} else {
				out[t] = 0
			}
		}
	}
}

// checkFinite reports a scalar hyper-parameter that is NaN or ±Inf.
func checkFinite(kernel, name string, x float64) error {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return fmt.Errorf("%s: %s = %v, want a finite number", kernel, name, x)
	}
	return nil
}

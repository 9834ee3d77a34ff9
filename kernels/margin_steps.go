package kernels

import "fmt"

// Steps lists the critiqued steps of each trajectory of a Packed batch, flat
// like the tokens (S steps in all):
//
//	Offsets  is (B+1) int32: trajectory b owns the steps [Offsets[b], Offsets[b+1]);
//	         Offsets[0] = 0, non-decreasing, Offsets[B] = S.
//	Start,
//	End      are (S) int32: step s covers the packed tokens [Start[s], End[s]),
//	         inside its trajectory's span; the steps of one trajectory come in
//	         token order and do not overlap (gaps between them are fine).
//	Critique is (S) int8:  z_s ∈ {−1, 0, +1}.
//
// Only the agent tokens (mask 1) of a step belong to it: a step with none is
// not a step of the policy and counts neither in |P| nor in |N|.
type Steps struct {
	Offsets  []int32
	Start    []int32
	End      []int32
	Critique []int8
}

// NumSteps is S.
func (s Steps) NumSteps() int { return len(s.Critique) }

// Validate checks s against the batch p (validate p first: this reads only
// its offsets).
func (s Steps) Validate(p Packed) error {
	nb := p.NumTrajectories()
	if nb < 0 {
		return fmt.Errorf("steps: the packed batch has no offsets")
	}
	if len(s.Offsets) != nb+1 {
		return fmt.Errorf("steps: offsets has %d entries, want B+1 = %d", len(s.Offsets), nb+1)
	}
	ns := len(s.Critique)
	if len(s.Start) != ns || len(s.End) != ns {
		return fmt.Errorf("steps: start, end and critique have %d, %d and %d entries, want one per step each", len(s.Start), len(s.End), ns)
	}
	if s.Offsets[0] != 0 || int(s.Offsets[nb]) != ns {
		return fmt.Errorf("steps: offsets run from %d to %d, want 0 to S = %d", s.Offsets[0], s.Offsets[nb], ns)
	}
	for b := range nb {
		s0, s1 := s.Offsets[b], s.Offsets[b+1]
		if s1 < s0 || int(s1) > ns {
			return fmt.Errorf("steps: offsets[%d] = %d after %d; want non-decreasing values in [0, S = %d]", b+1, s1, s0, ns)
		}
		lo, hi := p.Span(b)
		prevEnd := lo
		for i := s0; i < s1; i++ {
			st, en := int(s.Start[i]), int(s.End[i])
			if st < prevEnd || en < st || en > hi {
				return fmt.Errorf("steps: step %d of trajectory %d spans tokens [%d, %d); want start ≤ end inside the trajectory [%d, %d) and after the previous step (ends at %d)", i, b, st, en, lo, hi, prevEnd)
			}
			if z := s.Critique[i]; z < -1 || z > 1 {
				return fmt.Errorf("steps: critique %d of step %d, want −1, 0 or +1", z, i)
			}
			prevEnd = en
		}
	}
	return nil
}

// MarginMode is how the AREW margin u is spread over a trajectory's tokens;
// see MarginCorrectionRef and doc_advantage.go.
type MarginMode int

const (
	// MarginStep is the paper's per-step u copied to every agent token of the
	// step: +1/|P| or −1/|N| per token. Σ u = 0 over steps, not over tokens.
	// It is the exact gradient of the paper's margin; the trainers' default.
	MarginStep MarginMode = iota
	// MarginStepSpread divides the step's u evenly over its agent tokens:
	// +1/(|P|·n_s) or −1/(|N|·n_s). Σ u = 0 over steps and over tokens.
	MarginStepSpread
	// MarginMinorityFixed works over tokens: the side with fewer tokens gets
	// ±1 per token, the other ∓minority/majority, so Σ u = 0 over tokens.
	MarginMinorityFixed
	// MarginAbsSum gives +1/(2 s+) per positive token and −1/(2 s−) per
	// negative token: Σ u = 0 and Σ |u| = 1 over tokens.
	MarginAbsSum
)

var marginModeNames = [...]string{
	MarginStep:          "step",
	MarginStepSpread:    "step_spread",
	MarginMinorityFixed: "minority_fixed",
	MarginAbsSum:        "abs_sum",
}

// String is the name ParseMarginMode reads.
func (m MarginMode) String() string {
	if m < 0 || int(m) >= len(marginModeNames) {
		return fmt.Sprintf("MarginMode(%d)", int(m))
	}
	return marginModeNames[m]
}

// MarshalText writes the mode's name, so a config holds "step", not 0.
func (m MarginMode) MarshalText() ([]byte, error) {
	if m < 0 || int(m) >= len(marginModeNames) {
		return nil, fmt.Errorf("unknown AREW margin mode %d", int(m))
	}
	return []byte(marginModeNames[m]), nil
}

// UnmarshalText reads a mode name (ParseMarginMode).
func (m *MarginMode) UnmarshalText(text []byte) error {
	v, err := ParseMarginMode(string(text))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// ParseMarginMode reads a mode name: step (= step_copied), step_spread,
// minority_fixed, abs_sum.
func ParseMarginMode(name string) (MarginMode, error) {
	if name == "step_copied" {
		return MarginStep, nil
	}
	for m, n := range marginModeNames {
		if n == name {
			return MarginMode(m), nil
		}
	}
	return 0, fmt.Errorf("unknown AREW margin mode %q; want step, step_copied, step_spread, minority_fixed or abs_sum", name)
}

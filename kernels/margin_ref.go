package kernels

import "fmt"

// MarginCorrectionRef is the reference AREW margin correction: out is (T),
// steps describes the critiqued steps of p's trajectories. With accumulate
// false it writes λ·u_t to every token (0 outside the counted steps and on
// observation tokens); with accumulate true it adds λ·u_t to the agent tokens
// of the counted steps and leaves every other token as it was, so that on an
// advantage buffer it computes Â = A + λ·u.
//
// Per trajectory, P and N are its steps with z = +1 and z = −1 that hold at
// least one agent token, n_s the agent tokens of step s, s+ = Σ_{s∈P} n_s and
// s− = Σ_{s∈N} n_s. Each agent token of a step in P gets u = +w+, of a step in
// N u = −w−, where (see doc_advantage.go for why)
//
//	step (copied):   w+ = 1/|P|            w− = 1/|N|
//	step_spread:     w+ = 1/(|P|·n_s)      w− = 1/(|N|·n_s)
//	minority_fixed:  s+ ≤ s−: w+ = 1, w− = s+/s−;  else w+ = s−/s+, w− = 1
//	abs_sum:         w+ = 1/(2 s+)         w− = 1/(2 s−)
//
// A trajectory with P or N empty gets u = 0 (as the released code). Weights
// and λ·u are float64, rounded once per token. λ must be finite.
func MarginCorrectionRef(p Packed, steps Steps, mode MarginMode, lambda float64, out []float32, accumulate bool) error {
	if err := CheckMarginArgs(p, steps, mode, lambda, out); err != nil {
		return err
	}
	marginRange(p, steps, mode, lambda, out, accumulate, 0, p.NumTrajectories())
	return nil
}

// marginRange computes trajectories [b0, b1); it touches only their tokens,
// so disjoint ranges may run concurrently.
func marginRange(p Packed, steps Steps, mode MarginMode, lambda float64, out []float32, accumulate bool, b0, b1 int) {
	for b := b0; b < b1; b++ {
		if !accumulate {
			lo, hi := p.Span(b)
			clear(out[lo:hi])
		}
		s0, s1 := int(steps.Offsets[b]), int(steps.Offsets[b+1])
		// Pass 1: count positive and negative steps and their agent tokens.
		nPos, nNeg, tokPos, tokNeg := 0, 0, 0, 0
		for i := s0; i < s1; i++ {
			z := steps.Critique[i]
			if z == 0 {
				continue
			}
			n := agentTokens(p.Mask[steps.Start[i]:steps.End[i]])
			switch {
			case n == 0:
			case z > 0:
				nPos, tokPos = nPos+1, tokPos+n
			default:
				nNeg, tokNeg = nNeg+1, tokNeg+n
			}
		}
		if nPos == 0 || nNeg == 0 {
			continue // one-sided (or no) critiques: no margin
		}
		wPos, wNeg := marginWeights(mode, nPos, nNeg, tokPos, tokNeg)
		// Pass 2: write λ·u on the agent tokens of the counted steps.
		for i := s0; i < s1; i++ {
			z := steps.Critique[i]
			if z == 0 {
				continue
			}
			span := p.Mask[steps.Start[i]:steps.End[i]]
			u := wPos
			if z < 0 {
				u = -wNeg
			}
			if mode == MarginStepSpread {
				n := agentTokens(span)
				if n == 0 {
					continue
				}
				u /= float64(n)
			}
			lu := lambda * u
			base := int(steps.Start[i])
			for j, m := range span {
				if m == 0 {
					continue
				}
				if accumulate {
					out[base+j] = float32(float64(out[base+j]) + lu)
				} else {
					out[base+j] = float32(lu)
				}
			}
		}
	}
}

// marginWeights returns w+ and w− (per token; step_spread divides them by
// n_s afterwards) for a trajectory with both sides present.
func marginWeights(mode MarginMode, nPos, nNeg, tokPos, tokNeg int) (wPos, wNeg float64) {
	switch mode {
	case MarginStep, MarginStepSpread:
		return 1 / float64(nPos), 1 / float64(nNeg)
	case MarginMinorityFixed:
		if tokPos <= tokNeg {
			return 1, float64(tokPos) / float64(tokNeg)
		}
		return float64(tokNeg) / float64(tokPos), 1
	case MarginAbsSum:
		return 1 / (2 * float64(tokPos)), 1 / (2 * float64(tokNeg))
	}
	panic(fmt.Sprintf("kernels: margin mode %v passed the checks", mode))
}

// agentTokens counts the 1s of a mask span.
func agentTokens(mask []uint8) int {
	n := 0
	for _, m := range mask {
		n += int(m)
	}
	return n
}

// CheckMarginArgs is MarginCorrection's argument check, exported for the
// GPU kernels.
func CheckMarginArgs(p Packed, steps Steps, mode MarginMode, lambda float64, out []float32) error {
	const k = "margin correction"
	if err := p.Validate(); err != nil {
		return fmt.Errorf("%s: %w", k, err)
	}
	if err := steps.Validate(p); err != nil {
		return fmt.Errorf("%s: %w", k, err)
	}
	if mode < 0 || int(mode) >= len(marginModeNames) {
		return fmt.Errorf("%s: unknown mode %v", k, mode)
	}
	if err := checkFinite(k, "lambda", lambda); err != nil {
		return err
	}
	return p.checkTokens(k, "out", out)
}

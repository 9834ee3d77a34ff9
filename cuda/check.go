//go:build gpu

package cuda

import (
	"fmt"
	"math"

	"arew/kernels"
)

// The argument checks of the host-slice entry points: the same rules, in
// the same words, as package kernels' (whose checks are unexported), so a
// caller switching between CPU and GPU sees the same errors. They run
// before anything is copied or launched.

func checkLogProbArgs(logits []float32, n, v int, targets []int32, logp, lse, ent []float32) error {
	if n < 0 || v < 1 {
		return fmt.Errorf("token log-prob: bad shape n=%d v=%d", n, v)
	}
	if len(logits) < n*v || len(targets) < n || len(logp) < n || len(lse) < n || (ent != nil && len(ent) < n) {
		return fmt.Errorf("token log-prob: buffers too short for n=%d v=%d", n, v)
	}
	return checkTargets(targets[:n], v)
}

func checkLogProbBackwardArgs(logits []float32, n, v int, targets []int32, lse, ent, gLogp, gEnt, dlogits []float32) error {
	if n < 0 || v < 1 {
		return fmt.Errorf("token log-prob backward: bad shape n=%d v=%d", n, v)
	}
	if len(logits) < n*v || len(targets) < n || len(lse) < n || len(gLogp) < n || len(dlogits) < n*v {
		return fmt.Errorf("token log-prob backward: buffers too short for n=%d v=%d", n, v)
	}
	if gEnt != nil && (len(gEnt) < n || len(ent) < n) {
		return fmt.Errorf("token log-prob backward: entropy gradient needs ent and gEnt of length %d", n)
	}
	return checkTargets(targets[:n], v)
}

func checkTargets(targets []int32, v int) error {
	for i, y := range targets {
		if y < 0 || int(y) >= v {
			return fmt.Errorf("token log-prob: target %d at row %d is outside the vocabulary [0, %d)", y, i, v)
		}
	}
	return nil
}

func checkTokens(k string, p kernels.Packed, name string, x []float32) error {
	if len(x) != p.NumTokens() {
		return fmt.Errorf("%s: %s has %d entries, want T = %d", k, name, len(x), p.NumTokens())
	}
	return nil
}

func checkMarginArgs(p kernels.Packed, steps kernels.Steps, mode kernels.MarginMode, lambda float64, out []float32) error {
	const k = "margin correction"
	if err := p.Validate(); err != nil {
		return fmt.Errorf("%s: %w", k, err)
	}
	if err := steps.Validate(p); err != nil {
		return fmt.Errorf("%s: %w", k, err)
	}
	if _, err := kernels.ParseMarginMode(mode.String()); err != nil {
		return fmt.Errorf("%s: unknown mode %v", k, mode)
	}
	if math.IsNaN(lambda) || math.IsInf(lambda, 0) {
		return fmt.Errorf("%s: lambda = %v, want a finite number", k, lambda)
	}
	return checkTokens(k, p, "out", out)
}

func checkGAEArgs(p kernels.Packed, rewards, values []float32, gamma, lambda float64, adv, ret []float32) error {
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
	for _, b := range []struct {
		name string
		x    []float32
	}{{"rewards", rewards}, {"values", values}, {"adv", adv}, {"ret", ret}} {
		if err := checkTokens(k, p, b.name, b.x); err != nil {
			return err
		}
	}
	for t, m := range p.Mask {
		if m == 0 && rewards[t] != 0 { // NaN != 0 too
			return fmt.Errorf("%s: reward %v on observation token %d; GAE skips observation tokens, put it on an agent token (usually the trajectory's last)", k, rewards[t], t)
		}
	}
	return nil
}

func checkGroupBaselineArgs(p kernels.Packed, scores []float32, groups []int32, norm kernels.GroupNorm, out []float32) error {
	const k = "group baseline"
	if err := p.Validate(); err != nil {
		return fmt.Errorf("%s: %w", k, err)
	}
	nb := p.NumTrajectories()
	if len(scores) != nb {
		return fmt.Errorf("%s: scores has %d entries, want B = %d", k, len(scores), nb)
	}
	if err := checkTokens(k, p, "out", out); err != nil {
		return err
	}
	if len(groups) != nb {
		return fmt.Errorf("%s: scores, groups and adv have %d, %d and %d entries, want one per trajectory each", k, nb, len(groups), nb)
	}
	if norm.Std && !(norm.Eps >= 0 && !math.IsInf(norm.Eps, 1)) {
		return fmt.Errorf("%s: eps = %v, want a finite number ≥ 0", k, norm.Eps)
	}
	for i, g := range groups {
		if g < 0 || int(g) >= nb {
			return fmt.Errorf("%s: group id %d of trajectory %d is outside [0, B = %d); map prompt ids to dense ids first", k, g, i, nb)
		}
	}
	return nil
}

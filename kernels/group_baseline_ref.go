package kernels

import (
	"fmt"
	"math"
)

// GroupNorm says how the group baseline scales a centred score.
//
//	Std = true:  A_i = (r_i − μ_g) / (σ_g + Eps)    (GRPO; verl's default)
//	Std = false: A_i =  r_i − μ_g                   (Dr. GRPO; Eps unused)
type GroupNorm struct {
	Std bool
	Eps float64
}

// GRPONorm is verl's default (norm_adv_by_std_in_grpo = true, epsilon 1e-6).
var GRPONorm = GroupNorm{Std: true, Eps: 1e-6}

// DrGRPONorm subtracts the group mean only.
var DrGRPONorm = GroupNorm{Std: false}

// GroupAdvantagesRef is the GRPO outcome advantage per trajectory: scores,
// groups and adv are (B). Trajectories with the same group id (the rollouts of
// one prompt) form a group g of n_g members, and
//
//	μ_g = (1/n_g) Σ_{i∈g} r_i
//	σ_g = sqrt( (1/(n_g−1)) Σ_{i∈g} (r_i − μ_g)² )     (unbiased, as torch.std)
//	A_i = (r_i − μ_g) / (σ_g + ε)   or   r_i − μ_g      (see GroupNorm)
//
// A group of one gets μ = 0 and σ = 1, as verl does (so A = r/(1+ε)). Group
// ids must lie in [0, B): map prompt uids to dense ids before the call (ids
// may be unused). Sums are float64, in two passes. A NaN score makes its whole
// group NaN (its mean is NaN) and leaves the other groups alone.
func GroupAdvantagesRef(scores []float32, groups []int32, norm GroupNorm, adv []float32) error {
	if err := checkGroupArgs(scores, groups, norm, len(adv)); err != nil {
		return err
	}
	groupAdvantages(scores, groups, norm, adv)
	return nil
}

// groupAdvantages is GroupAdvantagesRef after its checks.
func groupAdvantages(scores []float32, groups []int32, norm GroupNorm, adv []float32) {
	mean, std := groupStats(scores, groups)
	for i, r := range scores {
		g := groups[i]
		d := float64(r) - mean[g]
		if norm.Std {
			d /= std[g] + norm.Eps
		}
		adv[i] = float32(d)
	}
}

// GroupBaselineRef is GroupAdvantagesRef broadcast to tokens: scores and
// groups are (B), out is (T); every agent token of trajectory b gets A_b and
// every observation token 0 (verl multiplies by the response mask).
func GroupBaselineRef(p Packed, scores []float32, groups []int32, norm GroupNorm, out []float32) error {
	if err := CheckGroupBaselineArgs(p, scores, groups, norm, out); err != nil {
		return err
	}
	perTraj := make([]float32, len(scores))
	groupAdvantages(scores, groups, norm, perTraj)
	broadcastRange(p, perTraj, out, 0, p.NumTrajectories())
	return nil
}

// groupStats returns μ_g and σ_g indexed by group id (len B); a group of one
// gets (0, 1), an unused id (0, 0).
func groupStats(scores []float32, groups []int32) (mean, std []float64) {
	nb := len(scores)
	mean = make([]float64, nb)
	std = make([]float64, nb)
	count := make([]int, nb)
	for i, r := range scores {
		mean[groups[i]] += float64(r)
		count[groups[i]]++
	}
	for g, n := range count {
		if n > 0 {
			mean[g] /= float64(n)
		}
	}
	for i, r := range scores {
		d := float64(r) - mean[groups[i]]
		std[groups[i]] += d * d
	}
	for g, n := range count {
		switch {
		case n == 1:
			mean[g], std[g] = 0, 1
		case n > 1:
			std[g] = math.Sqrt(std[g] / float64(n-1))
		}
	}
	return mean, std
}

func checkGroupArgs(scores []float32, groups []int32, norm GroupNorm, nAdv int) error {
	const k = "group baseline"
	nb := len(scores)
	if len(groups) != nb || nAdv != nb {
		return fmt.Errorf("%s: scores, groups and adv have %d, %d and %d entries, want one per trajectory each", k, nb, len(groups), nAdv)
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

// CheckGroupBaselineArgs is GroupBaseline's argument check, exported for
// the GPU kernels.
func CheckGroupBaselineArgs(p Packed, scores []float32, groups []int32, norm GroupNorm, out []float32) error {
	const k = "group baseline"
	if err := p.Validate(); err != nil {
		return fmt.Errorf("%s: %w", k, err)
	}
	if err := p.checkTrajectories(k, "scores", len(scores)); err != nil {
		return err
	}
	if err := p.checkTokens(k, "out", out); err != nil {
		return err
	}
	return checkGroupArgs(scores, groups, norm, len(scores))
}

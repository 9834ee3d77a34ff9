package rl

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"arew/kernels"
	"arew/tasks"
)

// AREW configures the intra-trajectory margin correction Â = A + λ·u
// (docs/arew.md §2). It changes advantages only: the critic's targets
// (Returns), the importance ratio, clipping and the reward are untouched.
type AREW struct {
	// Critiques selects which steps' critiques feed u.
	Critiques CritiqueSet `json:"critiques"`
	Lambda    float64     `json:"lambda"`
	// Mode is the kernel's margin mode, written by name: step (the
	// paper's, copied to the step's tokens: the default), step_spread,
	// minority_fixed, abs_sum.
	Mode kernels.MarginMode `json:"mode"`
	// Separate computes one margin over the AS steps and another over the BT
	// steps (each with its own |P| and |N|, as the PE prototype did) instead
	// of the paper's single margin over all critiqued steps.
	Separate bool `json:"separate"`
	// Start and End bound the updates (0-based) at which the correction is
	// applied: Start ≤ update < End; End = 0 means no end.
	Start int `json:"start"`
	End   int `json:"end"`
	// Perturb alters the critiques for the robustness studies.
	Perturb Perturb `json:"perturb"`
}

// Active reports whether the correction applies at this update.
func (a AREW) Active(update int) bool {
	return a.Critiques.any() && a.Lambda != 0 &&
		update >= a.Start && (a.End == 0 || update < a.End)
}

// Estimator is an advantage estimator, written by name.
type Estimator string

// The advantage estimators.
const (
	EstimatorGAE    Estimator = "gae"    // GAE over the critic's values
	EstimatorGRPO   Estimator = "grpo"   // the group's mean and std
	EstimatorDrGRPO Estimator = "drgrpo" // the group's mean only (Dr. GRPO)
)

// AdvantageConfig chooses the estimator and the correction.
type AdvantageConfig struct {
	Estimator Estimator `json:"estimator"`
	Gamma     float64   `json:"gamma"`
	Lambda    float64   `json:"lambda"`
	// Whiten normalises GAE advantages over the batch's agent tokens.
	Whiten bool `json:"whiten"`
	// GroupEps is the ε of the GRPO std denominator (verl: 1e-6).
	GroupEps float64 `json:"group_eps"`
	AREW     AREW    `json:"arew"`
}

// Validate reports the first bad field, before any rollout is spent.
func (c AdvantageConfig) Validate() error {
	switch c.Estimator {
	case EstimatorGAE:
		if !(c.Gamma >= 0 && c.Gamma <= 1) || !(c.Lambda >= 0 && c.Lambda <= 1) {
			return fmt.Errorf("advantage: gamma and lambda must lie in [0, 1], got %v, %v", c.Gamma, c.Lambda)
		}
	case EstimatorGRPO, EstimatorDrGRPO:
		if !(c.GroupEps >= 0) || math.IsInf(c.GroupEps, 0) {
			return fmt.Errorf("advantage: group_eps must be finite and ≥ 0, got %v", c.GroupEps)
		}
	default:
		return fmt.Errorf("advantage: estimator must be gae, grpo or drgrpo, got %q", c.Estimator)
	}
	a := c.AREW
	if err := a.Critiques.Validate(); err != nil {
		return fmt.Errorf("advantage: arew: %w", err)
	}
	if _, err := a.Mode.MarshalText(); err != nil {
		return fmt.Errorf("advantage: arew: %w", err)
	}
	if math.IsNaN(a.Lambda) || math.IsInf(a.Lambda, 0) {
		return fmt.Errorf("advantage: arew: lambda must be finite, got %v", a.Lambda)
	}
	if a.Start < 0 || a.End < 0 || (a.End > 0 && a.End <= a.Start) {
		return fmt.Errorf("advantage: arew: need 0 ≤ start < end (or end = 0: no end), got %d, %d", a.Start, a.End)
	}
	if err := a.Perturb.Validate(); err != nil {
		return fmt.Errorf("advantage: arew: %w", err)
	}
	return nil
}

// AdvantageStats are logged with every update.
type AdvantageStats struct {
	// MarginTrajectories is the fraction of trajectories whose (selected)
	// critiques have both a +1 and a −1: only those get a correction.
	MarginTrajectories float64
	// MeanAbsCorrection is the mean |λ·u| over agent tokens.
	MeanAbsCorrection float64
	Flipped           int
	// AS and BT split the correction by the kind of step it lands on: the
	// share of MeanAbsCorrection on that kind's tokens (the two add up to
	// it), and the fractions of that kind's steps whose selected critique
	// is +1 and −1 (after any perturbation) — where the credit goes.
	AS, BT KindStats
}

// KindStats is AdvantageStats' view of one step kind.
type KindStats struct {
	AbsCorrection float64 // Σ |λ·u| on this kind's tokens / all agent tokens
	Pos, Neg      float64 // fractions of this kind's steps with z = +1, −1
}

// Advantages fills b.Adv and b.Returns: the estimator, optional whitening,
// then the AREW correction if it is active at this update. rng drives only
// the critique perturbation. cfg must be valid (Validate, which every
// trainer runs when it is built).
func Advantages(b *Batch, cfg AdvantageConfig, update int, rng *rand.Rand) (AdvantageStats, error) {
	var st AdvantageStats
	switch cfg.Estimator {
	case EstimatorGAE:
		if err := kernels.GAE(b.Packed, b.Rewards, b.Values, cfg.Gamma, cfg.Lambda, b.Adv, b.Returns); err != nil {
			return st, fmt.Errorf("advantages: %w", err)
		}
		if cfg.Whiten {
			if err := kernels.MaskedWhiten(b.Packed, b.Adv); err != nil {
				return st, fmt.Errorf("advantages: %w", err)
			}
		}
	case EstimatorGRPO, EstimatorDrGRPO:
		norm := kernels.GroupNorm{Std: cfg.Estimator == EstimatorGRPO, Eps: cfg.GroupEps}
		scores := make([]float32, len(b.Trajs))
		for i, t := range b.Trajs {
			scores[i] = float32(t.Reward)
		}
		if err := kernels.GroupBaseline(b.Packed, scores, b.Groups, norm, b.Adv); err != nil {
			return st, fmt.Errorf("advantages: %w", err)
		}
		clear(b.Returns) // no critic
	default:
		return st, fmt.Errorf("advantages: estimator must be gae, grpo or drgrpo, got %q", cfg.Estimator)
	}
	if !cfg.AREW.Active(update) {
		return st, nil
	}
	z, flipped := SelectCritiques(b, cfg.AREW.Critiques, cfg.AREW.Perturb, rng)
	st.Flipped = flipped
	groups := [][]int8{z}
	if cfg.AREW.Separate {
		groups = splitByKind(b, z)
	}
	before := append([]float32(nil), b.Adv...)
	both := make([]bool, len(b.Trajs))
	for _, zg := range groups {
		steps := b.Steps
		steps.Critique = zg
		if err := kernels.MarginCorrection(b.Packed, steps, cfg.AREW.Mode, cfg.AREW.Lambda, b.Adv, true); err != nil {
			return st, fmt.Errorf("advantages: %w", err)
		}
		markTwoSided(steps, both)
	}
	n, sum := 0, 0.0
	for i, m := range b.Packed.Mask {
		if m == 1 {
			n++
			d := float64(b.Adv[i] - before[i])
			if d < 0 {
				d = -d
			}
			sum += d
		}
	}
	if n > 0 {
		st.MeanAbsCorrection = sum / float64(n)
		st.AS, st.BT = kindStats(b, z, before, tasks.AS, n), kindStats(b, z, before, tasks.BT, n)
	}
	k := 0
	for _, x := range both {
		if x {
			k++
		}
	}
	if len(both) > 0 {
		st.MarginTrajectories = float64(k) / float64(len(both))
	}
	return st, nil
}

// kindStats is the correction's share on kind's tokens (over agentTokens)
// and the signs of kind's selected critiques z.
func kindStats(b *Batch, z []int8, before []float32, kind tasks.Kind, agentTokens int) KindStats {
	var ks KindStats
	steps, pos, neg, sum := 0, 0, 0, 0.0
	for i, k := range b.StepKinds {
		if tasks.Kind(k) != kind {
			continue
		}
		steps++
		switch z[i] {
		case 1:
			pos++
		case -1:
			neg++
		}
		for j := b.Steps.Start[i]; j < b.Steps.End[i]; j++ {
			if b.Packed.Mask[j] == 1 {
				sum += math.Abs(float64(b.Adv[j] - before[j]))
			}
		}
	}
	ks.AbsCorrection = sum / float64(agentTokens)
	if steps > 0 {
		ks.Pos, ks.Neg = float64(pos)/float64(steps), float64(neg)/float64(steps)
	}
	return ks
}

// splitByKind returns the critiques of the AS steps and of the BT steps as
// two vectors (zeros elsewhere).
func splitByKind(b *Batch, z []int8) [][]int8 {
	as := make([]int8, len(z))
	bt := make([]int8, len(z))
	for i, v := range z {
		if tasks.Kind(b.StepKinds[i]) == tasks.AS {
			as[i] = v
		} else {
			bt[i] = v
		}
	}
	return [][]int8{as, bt}
}

// markTwoSided sets both[tr] for trajectories with a +1 and a −1 critique.
func markTwoSided(s kernels.Steps, both []bool) {
	for tr := range both {
		pos, neg := false, false
		for i := s.Offsets[tr]; i < s.Offsets[tr+1]; i++ {
			pos = pos || s.Critique[i] > 0
			neg = neg || s.Critique[i] < 0
		}
		both[tr] = both[tr] || (pos && neg)
	}
}

// Perturb changes critiques before AREW uses them, for the robustness
// studies of the paper (docs/arew.md §2: flip a fraction α at random; AREW
// should stay at or above vanilla up to α ≈ 0.4–0.5).
type Perturb struct {
	// Flip is α: each nonzero critique is negated with probability α.
	Flip float64 `json:"flip"`
	// Keep keeps only part of the critiques and zeroes the rest: "" (all),
	// "as", "bt", "first" or "last" (the first or last KeepFrac of each
	// trajectory's steps).
	Keep     string  `json:"keep"`
	KeepFrac float64 `json:"keep_frac"`
	// FillMissing replaces every zero critique that survived the selection
	// with Fill (a constant ±1), as in the "fill missing critiques" study.
	FillMissing bool `json:"fill_missing"`
	Fill        int8 `json:"fill"`
}

// Validate reports the first bad field.
func (p Perturb) Validate() error {
	if !(p.Flip >= 0 && p.Flip <= 1) {
		return fmt.Errorf("perturb: flip must lie in [0, 1], got %v", p.Flip)
	}
	switch p.Keep {
	case "", "as", "bt":
	case "first", "last":
		if !(p.KeepFrac > 0 && p.KeepFrac <= 1) {
			return fmt.Errorf("perturb: keep_frac must lie in (0, 1] with keep %q, got %v", p.Keep, p.KeepFrac)
		}
	default:
		return fmt.Errorf("perturb: keep must be \"\", as, bt, first or last, got %q", p.Keep)
	}
	if p.FillMissing && p.Fill != 1 && p.Fill != -1 {
		return fmt.Errorf("perturb: fill must be +1 or −1, got %d", p.Fill)
	}
	return nil
}

// SelectCritiques returns the critiques AREW should use for a batch, one per
// step of b.Steps: those of the selected kinds (any other kind's critique
// becomes 0), then perturbed by p (valid) with rng. The batch's own
// critiques are left unchanged. It also returns how many critiques were
// flipped.
func SelectCritiques(b *Batch, kinds CritiqueSet, p Perturb, rng *rand.Rand) ([]int8, int) {
	useAS, useBT := kinds.uses(tasks.AS), kinds.uses(tasks.BT)
	z := make([]int8, len(b.Steps.Critique))
	flipped := 0
	for tr := 0; tr+1 < len(b.Steps.Offsets); tr++ {
		s0, s1 := int(b.Steps.Offsets[tr]), int(b.Steps.Offsets[tr+1])
		n := s1 - s0
		for i := s0; i < s1; i++ {
			kind := tasks.Kind(b.StepKinds[i])
			if (kind == tasks.AS && !useAS) || (kind == tasks.BT && !useBT) {
				continue
			}
			if !keeps(p, kind, i-s0, n) {
				continue
			}
			v := b.Steps.Critique[i]
			if v == 0 && p.FillMissing {
				v = p.Fill
			}
			if v != 0 && p.Flip > 0 && rng.Float64() < p.Flip {
				v = -v
				flipped++
			}
			z[i] = v
		}
	}
	return z, flipped
}

// keeps says whether step k (0-based) of a trajectory with n steps survives
// the Keep selection. "first"/"last" keep ⌈KeepFrac·n⌉ steps.
func keeps(p Perturb, kind tasks.Kind, k, n int) bool {
	switch p.Keep {
	case "as":
		return kind == tasks.AS
	case "bt":
		return kind == tasks.BT
	case "first", "last":
		m := int(p.KeepFrac*float64(n) + 0.999999)
		if p.Keep == "first" {
			return k < m
		}
		return k >= n-m
	}
	return true
}

// CritiqueSet names the kinds of steps whose critiques feed AREW's
// margin, written by name.
type CritiqueSet string

// The critique sets ("" reads as none).
const (
	CritiquesNone CritiqueSet = "none"
	CritiquesAS   CritiqueSet = "as"
	CritiquesBT   CritiqueSet = "bt"
	CritiquesBoth CritiqueSet = "as+bt"
)

// CritiqueKinds are the values AREW.Critiques may take.
var CritiqueKinds = []CritiqueSet{CritiquesNone, CritiquesAS, CritiquesBT, CritiquesBoth}

// Validate refuses a name that is not a critique set.
func (c CritiqueSet) Validate() error {
	if c == "" || slices.Contains(CritiqueKinds, c) {
		return nil
	}
	return fmt.Errorf("critique kinds must be none, as, bt or as+bt, got %q", string(c))
}

// any reports whether the set feeds the margin at all.
func (c CritiqueSet) any() bool { return c != "" && c != CritiquesNone }

// uses reports whether steps of kind feed the margin.
func (c CritiqueSet) uses(kind tasks.Kind) bool {
	switch kind {
	case tasks.AS:
		return c == CritiquesAS || c == CritiquesBoth
	case tasks.BT:
		return c == CritiquesBT || c == CritiquesBoth
	}
	return false
}

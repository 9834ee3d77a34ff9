package rl

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"arew/tasks"
)

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

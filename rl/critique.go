package rl

import (
	"fmt"
	"math/rand/v2"

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
// step of b.Steps: those of the selected kinds ("as", "bt", "as+bt"; any
// other kind's critique becomes 0), then perturbed by p with rng. The
// batch's own critiques are left unchanged. It also returns how many
// critiques were flipped.
func SelectCritiques(b *Batch, kinds string, p Perturb, rng *rand.Rand) ([]int8, int, error) {
	useAS, useBT, err := parseKinds(kinds)
	if err != nil {
		return nil, 0, err
	}
	if err := p.Validate(); err != nil {
		return nil, 0, err
	}
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
	return z, flipped, nil
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

// CritiqueKinds are the values AREW.Critiques may take.
var CritiqueKinds = []string{"none", "as", "bt", "as+bt"}

func parseKinds(kinds string) (as, bt bool, err error) {
	switch kinds {
	case "none", "":
		return false, false, nil
	case "as":
		return true, false, nil
	case "bt":
		return false, true, nil
	case "as+bt":
		return true, true, nil
	}
	return false, false, fmt.Errorf("critique kinds must be none, as, bt or as+bt, got %q", kinds)
}

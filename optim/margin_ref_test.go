package optim

import (
	"fmt"
	"sort"

	G "gorgonia.org/gorgonia"
)

// This file is the reference implementation of AREW's margin as a loss,
// which the tests compare the advantage form against
// (TestAREWMarginEqualsAdvantageCorrection, TestGraphObjectivesAdd and
// their neighbours). Training never computes this loss: it adds λ·u to the
// advantages (kernels.MarginCorrection, called by rl's advantage step).
// doc.go ("AREW") derives why the two agree and when.

// Step is one decision of a trajectory (an AS query or a BT belief): the
// tokens [Start, End) of the packed batch, inside one sequence, and its
// critique Z ∈ {−1, 0, +1}.
type Step struct {
	Start, End int32
	Z          int8
}

// MarginConfig holds the options of the AREW margin loss.
type MarginConfig struct {
	Lambda float64 // λ, the margin's weight
	// Agg is the aggregation of the policy loss the margin is added to; the
	// margin of trajectory τ is weighted by the weight w_τ that Agg gives
	// τ's agent tokens. This is what makes the margin's gradient equal to
	// the advantage correction λ·u under that aggregation.
	Agg Agg
}

// MarginResult is the margin loss, its gradient and metrics.
type MarginResult struct {
	Loss  float64   // −λ Σ_τ w_τ L̂_τ
	DLogp []float64 // ∂Loss/∂logp_t (N) = −λ w_τ u_t on agent tokens of steps
	// MeanMargin is the mean of L̂_τ over the active trajectories.
	MeanMargin float64
	// Active counts the trajectories with both a +1 and a −1 step.
	Active int
}

// MarginLoss is AREW's intra-trajectory likelihood margin as a loss to
// minimise, the reference the tests hold the advantage form to. For
// trajectory τ with steps s, let log π(s) = Σ logp_t over the agent tokens
// of s, P_τ the steps with z = +1 and N_τ those with z = −1. Then
//
//	L̂_τ  = (1/|P_τ|) Σ_{s∈P_τ} log π(s) − (1/|N_τ|) Σ_{s∈N_τ} log π(s)   (0 unless both sets are non-empty)
//	Loss = −λ Σ_τ w_τ L̂_τ
//
// so ∂Loss/∂logp_t = −λ w_τ u_s for t in step s, with u_s = +1/|P_τ|,
// −1/|N_τ| or 0: the same as adding λ·u_s to the advantage of every token
// of s in a policy loss aggregated by cfg.Agg, at ratio 1
// (TestAREWMarginEqualsAdvantageCorrection; doc.go, "AREW").
//
// Steps may come in any order; each must be non-empty, lie inside one
// sequence and not overlap another.
func MarginLoss(logp []float64, b Packed, steps []Step, cfg MarginConfig) (MarginResult, error) {
	if err := checkLens(b, "arew margin", []string{"logp"}, logp); err != nil {
		return MarginResult{}, err
	}
	w, err := cfg.Agg.Weights(b)
	if err != nil {
		return MarginResult{}, fmt.Errorf("arew margin: %w", err)
	}
	seqOf, err := stepSequences(b, steps)
	if err != nil {
		return MarginResult{}, err
	}
	// Count |P_τ| and |N_τ| per sequence.
	pos := make([]int, b.NumTrajectories())
	neg := make([]int, b.NumTrajectories())
	for k, s := range steps {
		switch s.Z {
		case 1:
			pos[seqOf[k]]++
		case -1:
			neg[seqOf[k]]++
		}
	}
	margin := make([]float64, b.NumTrajectories())
	res := MarginResult{DLogp: make([]float64, len(logp))}
	for k, s := range steps {
		i := seqOf[k]
		if pos[i] == 0 || neg[i] == 0 || s.Z == 0 {
			continue // one-sided trajectories have no margin
		}
		u := 1 / float64(pos[i])
		if s.Z == -1 {
			u = -1 / float64(neg[i])
		}
		for t := s.Start; t < s.End; t++ {
			if b.Mask[t] == 0 {
				continue
			}
			margin[i] += u * logp[t]
			res.Loss -= cfg.Lambda * w[t] * u * logp[t]
			res.DLogp[t] = -cfg.Lambda * w[t] * u
		}
	}
	for i := range margin {
		if pos[i] > 0 && neg[i] > 0 {
			res.Active++
			res.MeanMargin += margin[i]
		}
	}
	if res.Active > 0 {
		res.MeanMargin /= float64(res.Active)
	}
	return res, nil
}

// stepSequences checks the steps and returns the sequence of each.
func stepSequences(b Packed, steps []Step) ([]int, error) {
	seqOf := make([]int, len(steps))
	order := make([]int, len(steps))
	for k, s := range steps {
		if s.Z < -1 || s.Z > 1 {
			return nil, fmt.Errorf("arew margin: step %d has critique %d, want −1, 0 or +1", k, s.Z)
		}
		if s.Start < 0 || s.End <= s.Start || int(s.End) > len(b.Mask) {
			return nil, fmt.Errorf("arew margin: step %d has span [%d, %d) outside [0, %d) or empty", k, s.Start, s.End, len(b.Mask))
		}
		// The sequence i with Offsets[i] ≤ Start < Offsets[i+1].
		i := sort.Search(b.NumTrajectories(), func(i int) bool { return b.Offsets[i+1] > s.Start })
		if s.End > b.Offsets[i+1] {
			return nil, fmt.Errorf("arew margin: step %d [%d, %d) crosses the end of sequence %d at %d", k, s.Start, s.End, i, b.Offsets[i+1])
		}
		seqOf[k] = i
		order[k] = k
	}
	sort.Slice(order, func(x, y int) bool { return steps[order[x]].Start < steps[order[y]].Start })
	for k := 1; k < len(order); k++ {
		if a, c := steps[order[k-1]], steps[order[k]]; c.Start < a.End {
			return nil, fmt.Errorf("arew margin: steps %d and %d overlap", order[k-1], order[k])
		}
	}
	return seqOf, nil
}

// MarginLossNode is MarginLoss over the log-prob node logp, for the graph
// tests.
func MarginLossNode(logp *G.Node, b Packed, steps []Step, cfg MarginConfig) (*G.Node, *MarginResult, error) {
	last := new(MarginResult)
	n, err := SliceLoss(logp, "arew_margin", len(b.Mask), func(x []float64) (float64, []float64, error) {
		r, err := MarginLoss(x, b, steps, cfg)
		*last = r
		return r.Loss, r.DLogp, err
	})
	return n, last, err
}

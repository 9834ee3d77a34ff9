package optim

import (
	"fmt"
	"math"
)

// Schedule is a learning-rate schedule over update steps 0, 1, 2, …:
// a linear warm-up to Peak over the first Warmup steps, then either
// constant (Total = 0) or a cosine decay from Peak to Floor that reaches
// Floor at step Total and stays there:
//
//	lr(k) = Peak · (k+1)/Warmup                                   k < Warmup
//	lr(k) = Floor + ½(Peak − Floor)(1 + cos(π (k−Warmup)/(Total−Warmup)))   Warmup ≤ k < Total
//	lr(k) = Floor                                                 k ≥ Total (cosine)
//
// The warm-up's first step is Peak/Warmup, not 0, so no update is wasted.
type Schedule struct {
	Peak, Floor float64
	Warmup      int
	Total       int // 0: constant after warm-up; else the step where the cosine reaches Floor
}

// Validate checks the schedule.
func (s Schedule) Validate() error {
	if !(s.Peak >= 0) || math.IsInf(s.Peak, 0) || !(s.Floor >= 0) || s.Floor > s.Peak {
		return fmt.Errorf("schedule: need 0 ≤ Floor ≤ Peak < ∞, got floor %v peak %v", s.Floor, s.Peak)
	}
	if s.Warmup < 0 || s.Total < 0 {
		return fmt.Errorf("schedule: warm-up %d and total %d must be ≥ 0", s.Warmup, s.Total)
	}
	if s.Total > 0 && s.Total <= s.Warmup {
		return fmt.Errorf("schedule: cosine total %d must exceed warm-up %d", s.Total, s.Warmup)
	}
	return nil
}

// LR is the learning rate of step k (k ≥ 0). Call Validate once first.
func (s Schedule) LR(k int) float64 {
	switch {
	case k < s.Warmup:
		return s.Peak * float64(k+1) / float64(s.Warmup)
	case s.Total == 0:
		return s.Peak
	case k >= s.Total:
		return s.Floor
	}
	frac := float64(k-s.Warmup) / float64(s.Total-s.Warmup)
	return s.Floor + 0.5*(s.Peak-s.Floor)*(1+math.Cos(math.Pi*frac))
}

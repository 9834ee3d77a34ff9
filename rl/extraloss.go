package rl

// ExtraLoss is a term added to a trainer's policy loss that its own graph
// computes on the policy being trained, on other inputs than the task's
// (a penalty on another prompt, say): Accumulate runs it on the current
// weights and adds its gradient into the parameters' Grad, returning its
// value. The trainer calls it at every policy step, after the objective's
// gradient is accumulated and before the global norm is clipped, so the
// step is one AdamW step on the sum of the two losses.
type ExtraLoss interface {
	Accumulate() (float64, error)
}

// SetExtraLoss adds e to every later policy step's loss (nil: none). The
// caller keeps e's graph alive until the trainer is done with it.
func (g *GRPO) SetExtraLoss(e ExtraLoss) { g.extra = e }

package rl

import (
	"errors"
	"fmt"
)

// ErrDiverged is returned when too many optimiser steps in a row had a
// non-finite loss or gradient norm: each such step is skipped (the
// weights are left alone and Metrics.SkippedSteps counts it), and a run
// of them means training has diverged, so the trainer stops rather than
// go on skipping silently.
var ErrDiverged = errors.New("training diverged")

// DefaultMaxSkipped is how many skipped steps in a row end training when a
// config leaves MaxSkipped at 0.
const DefaultMaxSkipped = 8

// skipGuard counts consecutive skipped optimiser steps (of every network a
// trainer steps) across updates and epochs.
type skipGuard struct {
	max, inARow int
}

func newSkipGuard(max int) skipGuard {
	if max <= 0 {
		max = DefaultMaxSkipped
	}
	return skipGuard{max: max}
}

// record notes one optimiser step; it returns an error wrapping
// ErrDiverged when the last max steps were all skipped.
func (g *skipGuard) record(skipped bool) error {
	if !skipped {
		g.inARow = 0
		return nil
	}
	g.inARow++
	if g.inARow >= g.max {
		return fmt.Errorf("%w: %d optimiser steps in a row had a non-finite loss or gradient (lower the learning rate)", ErrDiverged, g.inARow)
	}
	return nil
}

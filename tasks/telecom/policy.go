package telecom

import (
	"fmt"
	"math/rand/v2"

	"arew/tasks"
)

// Scripted policies. They read the episode's internals (the exact Bayes
// filter over fault configurations) through the concrete *Episode; they are
// baselines and data sources, not learners.

func asEpisode(ep tasks.Episode) (*Episode, error) {
	e, ok := ep.(*Episode)
	if !ok {
		return nil, fmt.Errorf("telecom policy given a %T, not a telecom episode", ep)
	}
	return e, nil
}

// validActions are the well-formed actions of the setting, addressed to the
// customer's line: 7 account tools, 8 device actions (tools in solo, say …
// in dual), done and transfer.
func (e *Episode) validActions() []action {
	out := make([]action, 0, numOps)
	for o := op(0); o < numOps; o++ {
		out = append(out, opAction(o, e.t.setting, e.line))
	}
	return out
}

// randomPolicy picks a valid action uniformly, ignoring everything it saw.
type randomPolicy struct{}

func (randomPolicy) Name() string { return "random" }
func (randomPolicy) Act(ep tasks.Episode, rng *rand.Rand) ([]tasks.Token, error) {
	e, err := asEpisode(ep)
	if err != nil {
		return nil, err
	}
	as := e.validActions()
	return as[rng.IntN(len(as))].tokens(), nil
}

// weakPolicy takes the strong policy's (productive) action with probability
// qas, else a uniformly random valid action. The BT knob of PolicySpec has
// nothing to act on here (no belief turns) and is ignored.
type weakPolicy struct{ qas float64 }

func (p weakPolicy) Name() string { return fmt.Sprintf("weak(%.2f)", p.qas) }
func (p weakPolicy) Act(ep tasks.Episode, rng *rand.Rand) ([]tasks.Token, error) {
	e, err := asEpisode(ep)
	if err != nil {
		return nil, err
	}
	if rng.Float64() < p.qas {
		return e.strongAction().tokens(), nil
	}
	as := e.validActions()
	return as[rng.IntN(len(as))].tokens(), nil
}

// strongPolicy diagnoses with the most informative read, then repairs, then
// closes (see strongAction). It is deterministic.
type strongPolicy struct{}

func (strongPolicy) Name() string { return "strong" }
func (strongPolicy) Act(ep tasks.Episode, _ *rand.Rand) ([]tasks.Token, error) {
	e, err := asEpisode(ep)
	if err != nil {
		return nil, err
	}
	return e.strongAction().tokens(), nil
}

// readOrder breaks ties between equally informative reads: account first.
var readOrder = []op{opLine, opUsage, opBar, opSettings, opTest}

// repairOrder is the order repairs are done in (a new SIM before reseating it).
var repairOrder = []op{opNewsim, opReseat, opTopup, opPlan, opRefuel, opRoaming, opAirplane, opData, opDroam}

// isRepeat says whether a would be a repeat now.
func (e *Episode) isRepeat(a action) bool {
	last, seen := e.lastOcc[a.key()]
	return seen && last >= e.lastWrite
}

// strongAction is the Bayes-optimal-ish expert's next action, over C, the
// configurations still consistent with everything seen:
//
//  1. if no configuration in C needs a repair and all agree on the close
//     (transfer for a broken phone, else done), close;
//  2. else, if some read's reply is uncertain under the posterior, do the
//     read with the largest expected information (entropy of its reply);
//  3. else do the first repair that every configuration in C needs (a fault
//     masked by another, e.g. a dead SIM behind airplane mode, is diagnosed
//     after the masking fault is repaired);
//  4. else (never seen in practice) act for the most probable configuration.
//
// In dual the device reads and repairs are messages asking the user.
func (e *Episode) strongAction() action {
	s, h, p := e.t.setting, &e.hyp, &e.t.prior
	needs := make([][]op, len(h.alive))
	pending, top := false, -1
	var closes [2]bool // some living configuration closes with done / transfer
	for i, ok := range h.alive {
		if !ok {
			continue
		}
		needs[i] = h.worlds[i].repairsNeeded(&p.expected[i])
		pending = pending || len(needs[i]) > 0
		closes[b2i(p.configs[i].has(fBroken))] = true
		if top < 0 || p.mass[i] > p.mass[top] {
			top = i
		}
	}
	closing := func(c config) action {
		if c.has(fBroken) {
			return opAction(opTransfer, s, e.line)
		}
		return opAction(opDone, s, e.line)
	}
	if !pending && !(closes[0] && closes[1]) {
		return closing(p.configs[top])
	}
	// Gains equal up to rounding are ties, broken by readOrder.
	const tol = 1e-9
	var best action
	bestGain := tol
	for _, o := range readOrder {
		a := opAction(o, s, e.line)
		if g := h.infoGain(a, s, e.line, e.isRepeat(a)); g > bestGain+tol {
			best, bestGain = a, g
		}
	}
	if bestGain > tol {
		return best
	}
	for _, o := range repairOrder {
		all := true
		for i, ok := range h.alive {
			if ok && !containsOp(needs[i], o) {
				all = false
				break
			}
		}
		if all {
			return opAction(o, s, e.line)
		}
	}
	if len(needs[top]) > 0 {
		return opAction(needs[top][0], s, e.line)
	}
	return closing(p.configs[top])
}

func containsOp(ops []op, o op) bool {
	for _, x := range ops {
		if x == o {
			return true
		}
	}
	return false
}

// constantPolicy plays a fixed sequence of actions whatever it sees, with the
// customer's line (from the prompt) filled into account tools.
type constantPolicy struct{ seq []op }

func (constantPolicy) Name() string { return "constant" }
func (p constantPolicy) Act(ep tasks.Episode, _ *rand.Rand) ([]tasks.Token, error) {
	e, err := asEpisode(ep)
	if err != nil {
		return nil, err
	}
	o := opDone
	if i := len(e.steps); i < len(p.seq) {
		o = p.seq[i]
	}
	return opAction(o, e.t.setting, e.line).tokens(), nil
}

package telecom

import (
	"strings"

	"arew/tasks"
)

// The best constant: the fixed action sequence that, ignoring every reply,
// ends in success most often. Only the prompt's line id is filled in (the
// prompt is not a reply), which makes this baseline stronger, not weaker.
//
// The search is exhaustive over outcomes. Reads, restart and failing calls
// never change the world, so only the writes that can change it and the
// closing action matter. Each write is taken at most once: a toggle done
// twice undoes itself, and a second charge, plan change or SIM is always a
// harmful change. Writes commute except two pairs: reseat only acts after
// newsim (the canonical order puts it after; reseat before newsim equals
// leaving it out), and refuel fails on a voice plan, so refuel-then-plan and
// plan-then-refuel are both tried. The first closing action ends the call, so
// a sequence ends with exactly one (without one an episode never succeeds).
// That is 2⁹ subsets of the nine effective writes, plus the swapped order
// where plan and refuel are both in, times two closes, each evaluated exactly
// on the instances' configurations; ties go to the shorter sequence.

// constantWrites in canonical order.
var constantWrites = []op{opTopup, opPlan, opRefuel, opRoaming, opNewsim, opReseat, opAirplane, opData, opDroam}

// constantCandidates lists every candidate sequence (closing action last)
// that fits in maxTurns turns.
func constantCandidates(maxTurns int) [][]op {
	var out [][]op
	for mask := 0; mask < 1<<len(constantWrites); mask++ {
		var seq []op
		for i, o := range constantWrites {
			if mask&(1<<i) != 0 {
				seq = append(seq, o)
			}
		}
		orders := [][]op{seq}
		if iPlan, iRefuel := indexOp(seq, opPlan), indexOp(seq, opRefuel); iPlan >= 0 && iRefuel >= 0 {
			swapped := append([]op(nil), seq...)
			swapped[iPlan], swapped[iRefuel] = swapped[iRefuel], swapped[iPlan]
			orders = append(orders, swapped)
		}
		for _, ord := range orders {
			if len(ord)+1 > maxTurns {
				continue
			}
			for _, closing := range []op{opDone, opTransfer} {
				out = append(out, append(append([]op(nil), ord...), closing))
			}
		}
	}
	return out
}

func indexOp(ops []op, o op) int {
	for i, x := range ops {
		if x == o {
			return i
		}
	}
	return -1
}

// constantSucceeds plays seq on configuration c's world, as the episode would
// (the constant always addresses the customer's line, so no call fails for a
// wrong line), and compares the final world with the expected one.
func constantSucceeds(c config, seq []op) bool {
	w := newWorld(c)
	for _, o := range seq {
		w.write(o)
	}
	return w == expectedWorld(c)
}

// bestConstant returns the best sequence on the first n instances of split
// and its success rate.
func (t *Task) bestConstant(split tasks.Split, n int) ([]op, float64) {
	counts := map[config]int{}
	for i := 0; i < n; i++ {
		c, _, err := t.instance(split, i)
		if err != nil { // callers check the index range first
			panic("telecom: " + err.Error())
		}
		counts[c]++
	}
	var best []op
	bestWins := -1
	for _, seq := range constantCandidates(t.cfg.MaxTurns) {
		wins := 0
		for c, k := range counts {
			if constantSucceeds(c, seq) {
				wins += k
			}
		}
		if wins > bestWins || wins == bestWins && len(seq) < len(best) {
			best, bestWins = seq, wins
		}
	}
	return best, float64(bestWins) / float64(n)
}

// describe renders a constant sequence in the setting's action syntax, the
// customer's line written L*.
func (t *Task) describe(seq []op) string {
	parts := make([]string, len(seq))
	for i, o := range seq {
		a := opAction(o, t.setting, 0)
		parts[i] = a.String()
		if o.account() {
			parts[i] = o.String() + " L*"
		}
	}
	return strings.Join(parts, ", ")
}

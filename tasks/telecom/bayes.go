package telecom

import (
	"math"
	"slices"

	"arew/tasks"
)

// outcome is what one action did to one world.
type outcome struct {
	reply   []tasks.Token
	toolErr bool // the tool refused (reply err): nothing changed
	changed bool // the world changed
}

// respond applies a parsed action to w under the rules of the setting: the
// single place where replies are made, used for the true world and for every
// hypothesis alike, so the Bayes filter predicts exactly what the agent sees.
// line is the customer's line id; repeat marks an action the agent already
// took with no accepted write since (a repeated read answers "repeat").
func respond(w *world, a action, s setting, line int, repeat bool) outcome {
	errOut := outcome{reply: []tasks.Token{tokErr}, toolErr: true}
	switch {
	case a.op.account() && a.line != line:
		return errOut // not this customer's line
	case a.op.device() && s == dual && !a.say:
		return errOut // the phone is the user's: the agent has no such tool
	case a.op.read():
		if repeat {
			return outcome{reply: []tasks.Token{tokRepeat}}
		}
		return outcome{reply: w.read(a.op)}
	}
	before := *w
	if w.write(a.op) {
		return errOut
	}
	out := outcome{changed: *w != before}
	switch {
	case a.op.close():
	case a.say:
		// The user does it and says what the phone does now.
		out.reply = []tasks.Token{tokSymptom[w.symptom()]}
	default:
		out.reply = []tasks.Token{tokOK}
	}
	return out
}

// hypotheses is the exact Bayes filter over fault configurations. Every
// hypothesis c keeps its own simulated world, started from newWorld(c) and
// driven by the agent's actions through respond; c stays alive while its
// predicted replies equal the replies seen. Replies are deterministic given
// c, so the likelihood of a history is 1 or 0 and the posterior is the prior
// restricted to the living hypotheses, renormalised.
type hypotheses struct {
	prior  *prior
	worlds []world
	alive  []bool
}

// newHypotheses starts the filter from the prompt: the configurations whose
// complaint matches the one the customer made.
func newHypotheses(p *prior, complaint symptom) hypotheses {
	h := hypotheses{prior: p, worlds: make([]world, len(p.configs)), alive: make([]bool, len(p.configs))}
	for i, c := range p.configs {
		h.worlds[i] = newWorld(c)
		h.alive[i] = h.worlds[i].symptom() == complaint
	}
	return h
}

// predict is the reply hypothesis i would give to a, without changing it.
func (h *hypotheses) predict(i int, a action, s setting, line int, repeat bool) outcome {
	w := h.worlds[i]
	return respond(&w, a, s, line, repeat)
}

// splits reports whether a's predicted replies differ among the living
// hypotheses (the consistent-set test of a diagnostic step).
func (h *hypotheses) splits(a action, s setting, line int, repeat bool) bool {
	var first []tasks.Token
	seen := false
	for i, ok := range h.alive {
		if !ok {
			continue
		}
		r := h.predict(i, a, s, line, repeat).reply
		if !seen {
			first, seen = r, true
		} else if !slices.Equal(r, first) {
			return true
		}
	}
	return false
}

// infoGain is the entropy (nats) of a's predicted reply under the posterior:
// the expected information the reply brings about the configuration.
// The masses are summed in the fixed order of first appearance (not over a
// map), so the value, and the strong policy's tie-breaks, are reproducible.
func (h *hypotheses) infoGain(a action, s setting, line int, repeat bool) float64 {
	slot := map[string]int{}
	var mass []float64
	total := 0.0
	for i, ok := range h.alive {
		if ok {
			r := string(tokenBytes(h.predict(i, a, s, line, repeat).reply))
			k, seen := slot[r]
			if !seen {
				k = len(mass)
				slot[r] = k
				mass = append(mass, 0)
			}
			mass[k] += h.prior.mass[i]
			total += h.prior.mass[i]
		}
	}
	ent := 0.0
	for _, m := range mass {
		p := m / total
		ent -= p * math.Log(p)
	}
	return ent
}

// observe drives every living hypothesis through a and keeps those that
// predict the reply seen.
func (h *hypotheses) observe(a action, s setting, line int, repeat bool, seen []tasks.Token) {
	for i, ok := range h.alive {
		if ok {
			out := respond(&h.worlds[i], a, s, line, repeat)
			h.alive[i] = slices.Equal(out.reply, seen)
		}
	}
}

// posterior is the exact Bayes posterior over prior.configs.
func (h *hypotheses) posterior() tasks.Belief {
	b := make(tasks.Belief, len(h.alive))
	for i, ok := range h.alive {
		if ok {
			b[i] = h.prior.mass[i]
		}
	}
	if err := b.Normalize(); err != nil {
		// The true configuration always stays alive: a bug, not bad input.
		panic("telecom: every hypothesis ruled out: " + err.Error())
	}
	return b
}

// massWhere is the posterior mass of the living hypotheses for which keep
// holds.
func (h *hypotheses) massWhere(keep func(i int) bool) float64 {
	num, den := 0.0, 0.0
	for i, ok := range h.alive {
		if ok {
			den += h.prior.mass[i]
			if keep(i) {
				num += h.prior.mass[i]
			}
		}
	}
	return num / den
}

// tokenBytes packs tokens into bytes for map keys (token ids are < 256 here).
func tokenBytes(ts []tasks.Token) []byte {
	b := make([]byte, len(ts))
	for i, t := range ts {
		b[i] = byte(t)
	}
	return b
}

package pe

// The critique rules (doc.go states them as a table; critique_test.go builds
// an episode for each rule).

// critiqueQuery judges a valid, new query (malformed and repeated queries are
// −1 under every rule and never reach here). sizeBefore is |C| before the
// reply.
//
//	spec:       −1 if the pair is dominated on the focus set, else +1
//	consistent: 0 if |C| ≤ 1 (nothing left to split), +1 if the hypotheses in
//	            C disagree on the query (the reply will eliminate some), else −1
func (e *Episode) critiqueQuery(rec asRecord, sizeBefore int) int8 {
	if e.t.cfg.Critiques == "consistent" {
		switch {
		case sizeBefore <= 1:
			return 0
		case rec.eliminated:
			// With deterministic replies, "C splits on q" is exactly "the
			// true reply eliminates some of C": the truth is in C and agrees
			// with itself, so any disagreement removes the others.
			return 1
		}
		return -1
	}
	if rec.dominated {
		return -1
	}
	return 1
}

// critiqueGuess judges a valid guess g against the previous valid belief
// (e.belief, the flat vector before the first guess) and the last query
// round (e.lastAS). A malformed guess is −1 under every rule.
//
//	spec:       0 if the last query's critique was −1 (invalid, repeated,
//	            dominated); else sign(cos(g, w*) − cos(prev, w*)), 0 on a tie
//	consistent: −1 if g contradicts a reply (as weights, g would have answered
//	            some query differently); else +1 if the last reply eliminated
//	            hypotheses; else 0
//	FreezePenalty (either rule): after an informative query round (spec:
//	            critique +1; consistent: it eliminated hypotheses), a guess
//	            with the previous belief's direction is −1.
func (e *Episode) critiqueGuess(g []int) int8 {
	informative := e.lastAS.z == 1
	if e.t.cfg.Critiques == "consistent" {
		informative = e.lastAS.eliminated
	}
	frozen := sameDirection(g, e.belief)
	if e.t.cfg.FreezePenalty && informative && frozen {
		return -1
	}
	if e.t.cfg.Critiques == "consistent" {
		if !e.consistentGuess(g) {
			return -1
		}
		if e.lastAS.eliminated {
			return 1
		}
		return 0
	}
	if e.lastAS.z == -1 {
		return 0
	}
	if frozen {
		return 0
	}
	d := cosine(toFloat(g), e.inst.truth) - e.psiBelief
	switch {
	case d > 1e-12:
		return 1
	case d < -1e-12:
		return -1
	}
	return 0
}

// consistentGuess reports whether the weights g reproduce every reply so far.
func (e *Episode) consistentGuess(g []int) bool {
	w := toFloat(g)
	for _, ev := range e.evidence {
		if reply(w, e.t.qs.query(ev.q), e.inst.table, e.t.cfg.EqualTol) != ev.r {
			return false
		}
	}
	return true
}

package telecom

// facts are what the critique rules look at for one step. The episode fills
// them in; the rules below are pure functions of them, so each rule can be
// tested on its own and on hand-built episodes.
type facts struct {
	malformed bool
	repeat    bool // same action as before with no accepted write since
	toolErr   bool // the tool refused (reply err)
	read      bool // a diagnostic step: an account read, a device read, or asking the user to check
	write     bool // a repair step: any write, by the agent or by the user on request
	close     bool // done or transfer
	user      bool // performed by the user on request (say …)
	changed   bool // the world changed
	// matched: the step performed, with effect and for the first time, an
	// action of the instance's expected-action list (for a closing action:
	// the expected close, with every fixable fault repaired and nothing
	// harmed — the step that completes the job).
	matched bool
	// newInfo: a read whose (action, result) pair was not seen before.
	newInfo bool
	// userStop: the user reports "works" for the first time (the user would
	// end the call satisfied).
	userStop bool
	// prematureTransfer: transfer when it is not the expected close of a
	// finished job.
	prematureTransfer bool
	// splits: the read's predicted results differ among the fault
	// configurations still consistent with everything seen.
	splits bool
	// late: the step's 1-based number is ≥ Config.LateTurn.
	late bool
}

// specSolo is the spec's critique in the solo setting (released code, solo
// space with strict progress labels, plus the spec's late-turn rule):
//
//	−1  malformed, repeated, tool error, or a write that changed nothing
//	+1  the number of matched expected actions grows
//	−1  premature transfer
//	 0  before LateTurn
//	−1  otherwise (an unproductive step late in the episode)
func specSolo(f facts) int8 {
	switch {
	case f.malformed || f.repeat || f.toolErr || f.write && !f.changed:
		return -1
	case f.matched:
		return 1
	case f.prematureTransfer:
		return -1
	case !f.late:
		return 0
	}
	return -1
}

// specDual is the spec's critique in the dual setting (released code, the
// dual space's "targeted" labels):
//
//	+1  the user stops satisfied (first "works" from the user)
//	−1  malformed, repeated, tool error, or an agent write that changed nothing
//	+1  the agent's own matched expected actions grow, a read (the agent's
//	    or the user's check) brings new information, or an agent write
//	    changes the state (even a harmful one: the critique is noisy)
//	−1  premature transfer
//	 0  before LateTurn
//	 0  a repair by the user that changed the state
//	−1  otherwise
//
// The user's repairs never count as matched expected actions here, as in the
// released code, which counts only the assistant's; they earn +1 only through
// the user's stop.
func specDual(f facts) int8 {
	switch {
	case f.userStop:
		return 1
	case f.malformed || f.repeat || f.toolErr || f.write && !f.user && !f.changed:
		return -1
	case f.matched && !f.user || f.read && f.newInfo || f.write && !f.user && f.changed:
		return 1
	case f.prematureTransfer:
		return -1
	case !f.late:
		return 0
	case f.write && f.user && f.changed:
		return 0
	}
	return -1
}

// consistentZ is the consistent-set critique (tasks/discrete.go's, adapted
// to tool use):
//
//	−1  malformed or repeated
//	±1  a diagnostic step: +1 if it splits the configurations still
//	    consistent with everything seen, else −1 (so a read once the
//	    configuration is known, or a failing read, is −1)
//	±1  a repair step: +1 if it performs an expected repair with effect
//	    (by the agent or the user), else −1 (harmful, no effect, tool error)
//	±1  a closing step: +1 if it is the expected close of a finished job, else −1
func consistentZ(f facts) int8 {
	switch {
	case f.malformed || f.repeat:
		return -1
	case f.read && f.splits, (f.write || f.close) && f.matched:
		return 1
	}
	return -1
}

package telecom

import "arew/tasks"

// symptom is what the customer experiences: the complaint in the prompt and
// the result of a connectivity test.
type symptom uint8

const (
	noService symptom = iota
	noData
	works
)

// status is the state of the conversation, part of the world so that the
// reward is a plain comparison of the final world with the expected one.
type status int8

const (
	open        status = iota
	closed             // the agent said done
	transferred        // the agent transferred to a human
)

// Plan levels.
const (
	planVoice int8 = iota
	planBasic
	planPremium
)

// world is the customer's line and phone. It is a comparable value: the
// simulator detects a state change with ==, and the reward compares the final
// world with the expected one (expectedWorld) field by field.
type world struct {
	// Phone.
	airplane   bool
	simDead    bool // the inserted SIM is dead (fault sim)
	simPending bool // a new SIM was issued and is not inserted yet; the old one no longer works
	broken     bool // radio hardware broken: only a human (transfer) can help
	dataOn     bool
	devRoam    bool // data roaming switch
	// Account.
	suspended bool
	quotaOut  bool
	lineRoam  bool // roaming enabled on the line
	plan      int8
	// Counters of charges and replacements: doing one that was not needed
	// is a harmful change, doing it twice is too.
	simIssued, topups, refuels int8
	// Situation and conversation.
	abroad bool
	status status
}

// newWorld is the initial world of a fault configuration. A healthy line at
// home has roaming off on the line and on the phone; abroad (faults roaming
// or droam) the healthy settings are both on.
func newWorld(c config) world {
	abroad := c.has(fRoaming) || c.has(fDevRoam)
	w := world{
		airplane:  c.has(fAirplane),
		simDead:   c.has(fSIM),
		broken:    c.has(fBroken),
		dataOn:    !c.has(fData),
		devRoam:   abroad && !c.has(fDevRoam),
		suspended: c.has(fSuspended),
		quotaOut:  c.has(fQuota),
		lineRoam:  abroad && !c.has(fRoaming),
		plan:      planBasic,
		abroad:    abroad,
	}
	if c.has(fPlan) {
		w.plan = planVoice
	}
	return w
}

// expectedWorld is the world after exactly the expected repairs and the
// expected closing action: every fixable fault repaired, nothing else
// changed, the conversation closed with done — or transferred when the
// phone is broken.
func expectedWorld(c config) world {
	w := newWorld(c)
	w.airplane, w.simDead, w.simPending = false, false, false
	w.dataOn, w.devRoam, w.lineRoam = true, w.abroad, w.abroad
	w.suspended, w.plan = false, planBasic
	w.simIssued, w.topups, w.refuels = b2i(c.has(fSIM)), b2i(c.has(fSuspended)), b2i(c.has(fQuota))
	w.status = closed
	if c.has(fBroken) {
		w.status = transferred
	}
	return w
}

func b2i(b bool) int8 {
	if b {
		return 1
	}
	return 0
}

func (w *world) simOK() bool { return !w.simDead && !w.simPending }

func (w *world) service() bool {
	return !w.airplane && w.simOK() && !w.broken && !w.suspended
}

func (w *world) dataWorks() bool {
	quota := w.plan >= planBasic && (!w.quotaOut || w.refuels > 0)
	roam := !w.abroad || w.lineRoam && w.devRoam
	return w.service() && w.dataOn && quota && roam
}

func (w *world) symptom() symptom {
	switch {
	case !w.service():
		return noService
	case !w.dataWorks():
		return noData
	}
	return works
}

// read returns the result of a read: a few tokens whose position tells the
// field.
//
//	line:     status (active|suspended), roaming on the line (on|off), location (home|abroad)
//	usage:    data allowance (left|out|none on a voice plan), plan (voice|basic|premium)
//	bar:      the most salient icon: plane > nosim > nobars > sos > bars
//	settings: airplane mode, mobile data, data roaming (on|off each)
//	test:     the symptom (no-service|no-data|works)
func (w *world) read(o op) []tasks.Token {
	switch o {
	case opLine:
		st, loc := tokActive, tokHome
		if w.suspended {
			st = tokSuspended
		}
		if w.abroad {
			loc = tokAbroad
		}
		return []tasks.Token{st, onOff(w.lineRoam), loc}
	case opUsage:
		q := tokLeft
		switch {
		case w.plan == planVoice:
			q = tokNone
		case w.quotaOut && w.refuels == 0:
			q = tokOut
		}
		return []tasks.Token{q, tokPlan[w.plan]}
	case opBar:
		switch {
		case w.airplane:
			return []tasks.Token{tokPlane}
		case !w.simOK():
			return []tasks.Token{tokNoSIM}
		case w.broken:
			return []tasks.Token{tokNoBars}
		case w.suspended:
			return []tasks.Token{tokSOS}
		}
		return []tasks.Token{tokBars}
	case opSettings:
		return []tasks.Token{onOff(w.airplane), onOff(w.dataOn), onOff(w.devRoam)}
	case opTest:
		return []tasks.Token{tokSymptom[w.symptom()]}
	}
	panic("telecom: read of a non-read op " + o.String())
}

// write applies a write or closing action and reports whether the tool
// refused it (a tool error, which changes nothing).
func (w *world) write(o op) (toolErr bool) {
	switch o {
	case opTopup:
		w.topups++
		w.suspended = false
	case opRefuel:
		if w.plan == planVoice {
			return true
		}
		w.refuels++
	case opRoaming:
		if w.lineRoam {
			return true
		}
		w.lineRoam = true
	case opPlan:
		if w.plan == planPremium {
			return true
		}
		w.plan++
	case opNewsim:
		if w.simPending {
			return true
		}
		w.simPending, w.simDead = true, false
		w.simIssued++
	case opAirplane:
		w.airplane = !w.airplane
	case opData:
		w.dataOn = !w.dataOn
	case opDroam:
		w.devRoam = !w.devRoam
	case opReseat:
		w.simPending = false // inserts the new SIM if one is pending; else nothing changes
	case opRestart:
	case opDone:
		w.status = closed
	case opTransfer:
		w.status = transferred
	default:
		panic("telecom: write of a read op " + o.String())
	}
	return false
}

// repairsNeeded lists, in the order a careful agent does them, the writes
// that bring w closer to the expected world exp (closing excluded). Harm
// that cannot be undone (an extra charge) is left alone.
func (w *world) repairsNeeded(exp *world) []op {
	var out []op
	if w.simDead && !w.simPending && w.simIssued < exp.simIssued {
		out = append(out, opNewsim)
	}
	if w.simPending {
		out = append(out, opReseat)
	}
	if w.suspended {
		out = append(out, opTopup)
	}
	if w.plan < exp.plan {
		out = append(out, opPlan)
	}
	if w.quotaOut && w.refuels < exp.refuels && w.plan >= planBasic {
		out = append(out, opRefuel)
	}
	if exp.lineRoam && !w.lineRoam {
		out = append(out, opRoaming)
	}
	if w.airplane != exp.airplane {
		out = append(out, opAirplane)
	}
	if w.dataOn != exp.dataOn {
		out = append(out, opData)
	}
	if w.devRoam != exp.devRoam {
		out = append(out, opDroam)
	}
	return out
}

package telecom

import (
	"math/rand/v2"

	"arew/tasks"
)

// lockedReads is how many turns the locked demonstrator reads before it
// acts (the strong policy reads about twice per call).
const lockedReads = 2

// lockedMoves are the four moves of the shared locked demonstrator
// (tasks.NewLocked) in a telecom call, which has no belief turns: its
// first lockedReads turns are its query turns and every later one a
// decision (a repair or the close), the telecom analogue of a stated
// belief. The strong move of either kind is the strong policy's action;
// the locked query is a read whose reply cannot split C; the held decision
// is the best constant sequence's next action, replies ignored, and done
// after it.
type lockedMoves struct {
	e   *Episode
	seq []op // the best constant sequence (Scripted("constant"))
}

func (m lockedMoves) QueryTurn() bool { return len(m.e.steps) < lockedReads }

// FinalTurn: the held decision is the close.
func (m lockedMoves) FinalTurn() bool { return m.held().close() }

func (m lockedMoves) StrongQuery(*rand.Rand) []tasks.Token { return m.e.strongAction().tokens() }

func (m lockedMoves) BayesBelief(bool, *rand.Rand) []tasks.Token {
	return m.e.strongAction().tokens()
}

func (m lockedMoves) HeldBelief(bool) []tasks.Token {
	return opAction(m.held(), m.e.t.setting, m.e.line).tokens()
}

// held is the constant sequence's action for this decision turn.
func (m lockedMoves) held() op {
	if k := len(m.e.steps) - lockedReads; k >= 0 && k < len(m.seq) {
		return m.seq[k]
	}
	return opDone
}

// LockedQuery is the first read, in readOrder, that is not a repeat and
// whose reply is the same under every configuration still consistent (the
// connectivity test repeats the complaint); failing that, a repeated read,
// whose reply "repeat" splits nothing either; failing both, the test.
func (m lockedMoves) LockedQuery(*rand.Rand) []tasks.Token {
	e := m.e
	s := e.t.setting
	var repeated *action
	for _, o := range readOrder {
		a := opAction(o, s, e.line)
		switch {
		case e.isRepeat(a):
			if repeated == nil {
				repeated = &a
			}
		case e.hyp.infoGain(a, s, e.line, false) <= 1e-9:
			return a.tokens()
		}
	}
	if repeated != nil {
		return repeated.tokens()
	}
	return opAction(opTest, s, e.line).tokens()
}

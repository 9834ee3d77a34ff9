package telecom

import (
	"fmt"

	"arew/tasks"
)

// setting says who may act on the phone.
type setting uint8

const (
	solo setting = iota // the agent has the device actions as tools
	dual                // the device actions are the user's; the agent asks with say
)

func (s setting) String() string {
	if s == solo {
		return "solo"
	}
	return "dual"
}

// action is a parsed agent turn.
//
//	<account op> L<k>     an account tool on line k          (both settings)
//	<device op>           a device tool                      (solo; in dual a tool error)
//	say <device op>       a message asking the user to do it (dual only)
//	done | transfer       close the conversation             (both settings)
//
// Everything else is malformed.
type action struct {
	op   op
	line int  // account ops: the line id named (0 … maxLines−1); −1 otherwise
	say  bool // a message to the user
}

// key identifies an action for repeat detection: identical tokens, identical key.
func (a action) key() int { return (int(a.op)*(maxLines+1)+a.line+1)*2 + int(b2i(a.say)) }

// userAct reports whether the user, not the agent, performs the action.
func (a action) userAct() bool { return a.say }

// toolCall reports whether the turn is a call of an agent tool (closing
// actions excluded); device ops called directly in dual count, they fail.
func (a action) toolCall() bool { return !a.say && !a.op.close() }

func (a action) tokens() []tasks.Token {
	switch {
	case a.say:
		return []tasks.Token{tokSay, opToken(a.op)}
	case a.op.account():
		return []tasks.Token{opToken(a.op), lineToken(a.line)}
	}
	return []tasks.Token{opToken(a.op)}
}

func (a action) String() string { return vocabulary.Decode(a.tokens()) }

// tokenOp maps a token to an op.
func tokenOp(t tasks.Token) (op, bool) {
	if t < tokFirstOp || t >= tokFirstOp+tasks.Token(numOps) {
		return 0, false
	}
	return op(t - tokFirstOp), true
}

// tokenLine maps a token to a line id.
func tokenLine(t tasks.Token) (int, bool) {
	if t < tokFirstLine || t >= tokFirstLine+maxLines {
		return 0, false
	}
	return int(t - tokFirstLine), true
}

// parseAction reads the agent's tokens for one turn (EOT excluded). It never
// panics: any token sequence is either an action or an error.
func parseAction(toks []tasks.Token, s setting) (action, error) {
	switch len(toks) {
	case 1:
		o, ok := tokenOp(toks[0])
		switch {
		case !ok:
			return action{}, fmt.Errorf("%s is not a tool", vocabulary.Word(toks[0]))
		case o.account():
			return action{}, fmt.Errorf("%s needs a line id", o)
		}
		return action{op: o, line: -1}, nil
	case 2:
		if toks[0] == tokSay {
			o, ok := tokenOp(toks[1])
			switch {
			case s == solo:
				return action{}, fmt.Errorf("no user to talk to in solo")
			case !ok || !o.device():
				return action{}, fmt.Errorf("say needs a device action, got %s", vocabulary.Word(toks[1]))
			}
			return action{op: o, line: -1, say: true}, nil
		}
		o, ok := tokenOp(toks[0])
		if !ok || !o.account() {
			return action{}, fmt.Errorf("%s takes no argument", vocabulary.Word(toks[0]))
		}
		l, ok := tokenLine(toks[1])
		if !ok {
			return action{}, fmt.Errorf("%s needs a line id, got %s", o, vocabulary.Word(toks[1]))
		}
		return action{op: o, line: l}, nil
	}
	return action{}, fmt.Errorf("a turn is 1 or 2 tokens, got %d", len(toks))
}

package textworld

import "arew/tasks"

// Turn is one observation and the action taken after it.
type Turn struct {
	Obs, Action []tasks.Token
}

// State is what a policy is shown before it acts: the goal, the last K
// turns, the current observation and the listed admissible actions.
type State struct {
	Goal       []tasks.Token
	History    []Turn
	Obs        []tasks.Token
	Admissible [][]tasks.Token
}

// History is the context length of the ACT paper's convention: the last
// k = 2 observation/action pairs.
const History = 2

// Snapshot is the state of env with the last k turns of past.
func Snapshot(env Env, past []Turn, k int) State {
	if k < 0 {
		k = 0
	}
	if len(past) > k {
		past = past[len(past)-k:]
	}
	return State{
		Goal:       env.Goal(),
		History:    append([]Turn(nil), past...),
		Obs:        env.Observation(),
		Admissible: env.Admissible(),
	}
}

// Tokens renders the state as a prompt; the policy continues it with its
// action and <eot>:
//
//	<bos> <task> goal (<obs> o <act> a)… <obs> o_t <adm> a1 <sep> a2 … <act>
func (s State) Tokens(v *tasks.Vocab) []tasks.Token {
	out := []tasks.Token{tasks.BOS, v.ID("<task>")}
	out = append(out, s.Goal...)
	obs, act := v.ID("<obs>"), v.ID("<act>")
	for _, t := range s.History {
		out = append(out, obs)
		out = append(out, t.Obs...)
		out = append(out, act)
		out = append(out, t.Action...)
	}
	out = append(out, obs)
	out = append(out, s.Obs...)
	out = append(out, v.ID("<adm>"))
	sep := v.ID("<sep>")
	for i, a := range s.Admissible {
		if i > 0 {
			out = append(out, sep)
		}
		out = append(out, a...)
	}
	return append(out, act)
}

package textworld

import (
	"fmt"

	"arew/tasks"
)

// The token formats the ACT pipeline builds on the environments (the
// training stages themselves live outside tasks). Every environment's
// vocabulary holds their words (Markers).

// CriticPrompt is the ACT choice prompt: the two candidates right after
// <bos>, then the state as State.Tokens renders it (without its <bos> and
// final <act>), then <choose>:
//
//	<bos> action 1 : x <sep> action 2 : y <task> goal … <adm> a1 <sep> a2 … <choose>
//
// The candidates come first so they sit at the same positions in every
// prompt: a small model with learned absolute positions finds them there,
// while after a state of varying length (100 to 300 tokens in alfworld) it
// did not (docs/act.md, "Learnability"). The critic answers "1" or "2",
// then <eot> (ParseChoice).
func CriticPrompt(v *tasks.Vocab, s State, x, y []tasks.Token) []tasks.Token {
	state := s.Tokens(v)
	one, two := v.ID("1"), v.ID("2")
	act, colon := v.ID("action"), v.ID(":")
	out := make([]tasks.Token, 0, len(state)+len(x)+len(y)+8)
	out = append(out, tasks.BOS, act, one, colon)
	out = append(out, x...)
	out = append(out, v.ID("<sep>"), act, two, colon)
	out = append(out, y...)
	out = append(out, state[1:len(state)-1]...)
	return append(out, v.ID("<choose>"))
}

// CriticActionPrompt is CriticPrompt ending with the actor's own <act>
// instead of <choose>: everything after <bos> and the candidates is the
// state exactly as the actor is shown it (State.Tokens), so the critic
// answers in the actor's channel, by writing out the action it picks,
// then <eot> (ParseCopiedChoice):
//
//	<bos> action 1 : x <sep> action 2 : y <task> goal … <adm> a1 <sep> a2 … <act>
func CriticActionPrompt(v *tasks.Vocab, s State, x, y []tasks.Token) []tasks.Token {
	out := CriticPrompt(v, s, x, y)
	out[len(out)-1] = v.ID("<act>")
	return out
}

// ParseChoice reads a critic's answer (its tokens before <eot>): exactly
// one token, "1" or "2". Anything else is a format error (the pipeline's
// R_fmt).
func ParseChoice(v *tasks.Vocab, answer []tasks.Token) (int, error) {
	if len(answer) != 1 {
		return 0, fmt.Errorf("a choice is one token, got %d", len(answer))
	}
	switch answer[0] {
	case v.ID("1"):
		return 1, nil
	case v.ID("2"):
		return 2, nil
	}
	return 0, fmt.Errorf("a choice is 1 or 2, got %s", v.Word(answer[0]))
}

// ParseCopiedChoice reads a critic that answers by writing out the action
// it picks (its tokens before <eot>): 1 when the answer is x token for
// token, 2 when it is y. Anything else, a mix of the two or a third
// command included, is a format error. x and y differ (D_critic drops an
// alternative equal to the expert's action).
func ParseCopiedChoice(answer, x, y []tasks.Token) (int, error) {
	switch {
	case Equal(answer, x):
		return 1, nil
	case Equal(answer, y):
		return 2, nil
	}
	return 0, fmt.Errorf("a copied choice must be one of the two candidates, got %d other tokens", len(answer))
}

// Reflection is the templated self-reflection of the Early Experience
// baseline, built from what the environment answered to the expert's action
// and to an alternative from the same state (Env.Clone):
//
//	<reflect> alternative a⁻ -> o⁻ expert a⁺ -> o⁺ so expert is better
func Reflection(v *tasks.Vocab, expert, expertObs, alt, altObs []tasks.Token) []tasks.Token {
	out := []tasks.Token{v.ID("<reflect>"), v.ID("alternative")}
	out = append(out, alt...)
	out = append(out, v.ID("->"))
	out = append(out, altObs...)
	out = append(out, v.ID("expert"))
	out = append(out, expert...)
	out = append(out, v.ID("->"))
	out = append(out, expertObs...)
	return append(out, v.Encode("so", "expert", "is", "better")...)
}

// Outcome runs action from a copy of env and returns the observation, so
// alternatives can be compared with the expert's action at one state.
func Outcome(env Env, action []tasks.Token) ([]tasks.Token, error) {
	return env.Clone().Step(action)
}

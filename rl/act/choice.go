package act

import (
	"fmt"

	"arew/tasks"
	"arew/tasks/textworld"
)

// ChoiceFormat is how the critic states its pick (docs/act.md §7, "The
// choice format", and §12). Both formats show the same two candidates
// before the same state; they differ in the tag that asks for the answer,
// in the answer and in how it is decoded.
type ChoiceFormat string

const (
	// ChoiceAction, the default, answers in the action channel: the
	// prompt ends with the actor's own <act> (textworld.CriticActionPrompt)
	// and the answer is one of the two candidates written out, then <eot>,
	// exactly as the actor writes an action. It is decoded under a prefix
	// tree of exactly the two candidates (Trie), so the critic can write
	// nothing else, and GRPO trains the policy renormalised under that
	// tree (rl.MaskedTask): the choice is a choice of action, and
	// training it trains the output that acting uses.
	ChoiceAction ChoiceFormat = "action"
	// ChoiceSlot is the first format, kept for comparison: the prompt ends
	// with <choose> (textworld.CriticPrompt) and the answer is the slot, "1"
	// or "2", decoded free (textworld.ParseChoice).
	ChoiceSlot ChoiceFormat = "slot"
)

// Validate rejects an unknown format.
func (f ChoiceFormat) Validate() error {
	if f != ChoiceSlot && f != ChoiceAction {
		return fmt.Errorf("choice_format must be %q or %q, got %q", ChoiceAction, ChoiceSlot, f)
	}
	return nil
}

// Prompt is the choice prompt of c in the format and the slot, 1 or 2,
// that holds the expert's action: the two candidates right after <bos>,
// then the state, then <act> (the action channel) or <choose> (the slot).
func (f ChoiceFormat) Prompt(v *tasks.Vocab, c CriticExample) ([]tasks.Token, int) {
	first, second := c.shown()
	if f == ChoiceAction {
		return textworld.CriticActionPrompt(v, c.State, first, second), c.ExpertSlot()
	}
	return textworld.CriticPrompt(v, c.State, first, second), c.ExpertSlot()
}

// Constraint is what the critic may write after c's prompt: under
// ChoiceAction the tree of the two candidates, each ended by <eot> (the
// choice between them is the one token where they first differ; every
// other token is forced); nil, free, for the slot.
func (f ChoiceFormat) Constraint(c CriticExample) Constraint {
	if f != ChoiceAction {
		return nil
	}
	return NewTrie([][]tasks.Token{c.Expert, c.Alt})
}

// Answer is the answer (EOT excluded) that picks slot 1 or 2 of c's
// prompt.
func (f ChoiceFormat) Answer(v *tasks.Vocab, c CriticExample, slot int) []tasks.Token {
	if f == ChoiceSlot {
		if slot == 1 {
			return []tasks.Token{v.ID("1")}
		}
		return []tasks.Token{v.ID("2")}
	}
	first, second := c.shown()
	if slot == 1 {
		return first
	}
	return second
}

// Parse reads the slot an answer (EOT excluded) picks in c's prompt; an
// answer in neither form is an error (R_fmt; under ChoiceAction's tree
// every answer that ends in time parses).
func (f ChoiceFormat) Parse(v *tasks.Vocab, c CriticExample, answer []tasks.Token) (int, error) {
	if f == ChoiceSlot {
		return textworld.ParseChoice(v, answer)
	}
	first, second := c.shown()
	return textworld.ParseCopiedChoice(answer, first, second)
}

// MaxAnswer is the token budget of an answer to c's prompt, EOT included:
// one token and EOT for a slot, the longer candidate and EOT for an
// action.
func (f ChoiceFormat) MaxAnswer(c CriticExample) int {
	if f == ChoiceSlot {
		return 2
	}
	return max(len(c.Expert), len(c.Alt)) + 1
}

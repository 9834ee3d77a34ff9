package act

import (
	"fmt"

	"arew/tasks"
	"arew/tasks/textworld"
)

// ChoiceFormat is how the critic states its pick after the choice prompt
// (textworld.CriticPrompt). The paper only says that the model "outputs
// its choice"; the prompt is the same in both formats, only the answer
// differs (docs/act.md §2 and §7, "The choice format").
type ChoiceFormat string

const (
	// ChoiceSlot answers with the slot, "1" or "2" (textworld.ParseChoice).
	ChoiceSlot ChoiceFormat = "slot"
	// ChoiceAction answers by writing out the picked action, token for
	// token (textworld.ParseCopiedChoice). The critic's output is then a
	// command, as the actor's is, so training the judgement trains the
	// same output distribution that acting uses.
	ChoiceAction ChoiceFormat = "action"
)

// Validate rejects an unknown format.
func (f ChoiceFormat) Validate() error {
	if f != ChoiceSlot && f != ChoiceAction {
		return fmt.Errorf("choice_format must be %q or %q, got %q", ChoiceSlot, ChoiceAction, f)
	}
	return nil
}

// Answer is the answer (EOT excluded) that picks slot 1 or 2 of the
// prompt of c (CriticExample.Prompt).
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

// Parse reads the slot an answer (EOT excluded) picks in the prompt of c;
// an answer in neither form is an error (R_fmt).
func (f ChoiceFormat) Parse(v *tasks.Vocab, c CriticExample, answer []tasks.Token) (int, error) {
	if f == ChoiceSlot {
		return textworld.ParseChoice(v, answer)
	}
	first, second := c.shown()
	return textworld.ParseCopiedChoice(answer, first, second)
}

// MaxAnswer is the token budget of an answer to c's prompt, EOT included:
// one token and EOT for a slot, the longer candidate and EOT for a copy.
func (f ChoiceFormat) MaxAnswer(c CriticExample) int {
	if f == ChoiceSlot {
		return 2
	}
	return max(len(c.Expert), len(c.Alt)) + 1
}

package mediq

import (
	"fmt"
	"strings"

	"arew/tasks"
)

// TextFormat is MediQ's text face (tasks.TextFace): the rules as a system
// prompt, the case (known facts, then the options A to D) in words, and
// short instructions for the headers. Moves are the token protocol's words:
// a query "fn22", a belief "1 9 9 9 | 9 9 9 9" ("|" or "cf" stand for <cf>).
func (t *Task) TextFormat() tasks.TextFormat {
	c := t.cfg
	top := c.Levels - 1
	system := fmt.Sprintf(`You are a doctor interviewing a patient. The patient has one of four candidate diagnoses, the options A, B, C and D (each one of the diagnoses dx0 to dx%d), each equally likely a priori. You may ask about findings fn0 to fn%d, one per question. The patient answers with the finding's value: absent or present (a binary finding), normal, low or high (a graded finding), or unknown when they cannot tell (no evidence). REP means the fact is already known (asked before or given in the case); BAD means your move was malformed. Which findings go with which diagnosis is not shown: it is medical knowledge you are expected to have learnt.

The interview has %d rounds. In each round you first ask about one finding, then state your belief. The last belief is your final answer: you succeed if the option with the single largest weight is the correct one.

Moves:
- a question: the finding's name alone, e.g. fn7
- a belief: four whole numbers from 0 to %d (weights of A, B, C, D, normalised), then a separator | (or cf), then four more: the belief you would state had the patient answered unknown, e.g. %s`,
		c.Diagnoses-1, c.Findings-1, c.Rounds, top, exampleBelief(c.Levels))
	phrases := map[string]string{
		"<bos>":    "Case. Known facts (finding value), then the options A B C D in order:",
		"<ask>":    fmt.Sprintf("\n\nYour move: ask about one finding (fn0 to fn%d).", c.Findings-1),
		"<guess>":  fmt.Sprintf("\nYour move: state your belief (4 numbers from 0 to %d, |, 4 more).", top),
		"<answer>": fmt.Sprintf("\nYour move: state your final belief (4 numbers from 0 to %d, |, 4 more); the option with the single largest weight is your diagnosis.", top),
		"<cf>":     "|",
		"REP":      "REP (already known)",
		"BAD":      "BAD (your last move was malformed)",
	}
	return tasks.TextFormat{System: system, Phrases: phrases,
		Aliases: map[string]string{"|": "<cf>", "cf": "<cf>"}}
}

// exampleBelief puts the top level on B and C, and its counterfactual flat.
func exampleBelief(levels int) string {
	top, low := fmt.Sprint(levels-1), "1"
	real := []string{low, top, top, low}
	cf := []string{top, top, top, top}
	return strings.Join(real, " ") + " | " + strings.Join(cf, " ")
}

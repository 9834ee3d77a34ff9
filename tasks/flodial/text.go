package flodial

import (
	"fmt"

	"arew/tasks"
)

// TextFormat is FloDial's text face (tasks.TextFace): the rules as a system
// prompt, the flowchart one question per line, and short instructions for
// the headers. Moves are the token protocol's words: a query "q3", a
// belief "0 3 3 0 0 0".
func (t *Task) TextFormat() tasks.TextFormat {
	k, q, l, r := t.cfg.Faults, t.cfg.Questions, t.cfg.Levels, t.cfg.Rounds
	system := fmt.Sprintf(`You are troubleshooting a device with a user. The device has exactly one of %d candidate faults, numbered 0 to %d, each equally likely a priori. The flowchart below lists %d yes/no diagnostic questions q0 to q%d; for each question it gives, in fault order 0 to %d, the answer the user would give under that fault: YES, NO or UNK (the user cannot tell; UNK is a real answer and is evidence too).

The conversation has %d rounds. In each round you first ask one question, then state your belief about the fault. The user answers with YES, NO or UNK; REP means you asked that question before (no new evidence), BAD means your move was malformed. The last belief is your final answer: you succeed if the fault with the single largest weight is the true one.

Moves:
- a question: its name alone, e.g. q3
- a belief: exactly %d whole numbers from 0 to %d, one per fault in order 0 to %d, e.g. %s. They are weights (normalised to sum to 1); at least one must be positive.`,
		k, k-1, q, q-1, k-1, r, k, l-1, k-1, exampleBelief(k, l))
	phrases := map[string]string{
		"<bos>":    "Flowchart (each line: a question, then the user's answer under fault 0, 1, ...):",
		"<ask>":    "\n\nYour move: ask one question (q0 to q" + fmt.Sprint(q-1) + ").",
		"<guess>":  fmt.Sprintf("\nYour move: state your belief (%d numbers from 0 to %d).", k, l-1),
		"<answer>": fmt.Sprintf("\nYour move: state your final belief (%d numbers from 0 to %d); the fault with the single largest weight is your answer.", k, l-1),
		"REP":      "REP (already asked)",
		"BAD":      "BAD (your last move was malformed)",
	}
	for i := 0; i < q; i++ {
		phrases[fmt.Sprintf("q%d", i)] = fmt.Sprintf("\nq%d:", i)
	}
	return tasks.TextFormat{System: system, Phrases: phrases}
}

// exampleBelief is a belief with the top level on fault 1 and one level
// less on fault 2, the rest 0.
func exampleBelief(k, levels int) string {
	out := ""
	for f := 0; f < k; f++ {
		v := 0
		switch f {
		case 1:
			v = levels - 1
		case 2:
			v = max(levels-2, 0)
		}
		if f > 0 {
			out += " "
		}
		out += fmt.Sprint(v)
	}
	return out
}

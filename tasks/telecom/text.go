package telecom

import (
	"fmt"

	"arew/tasks"
)

// TextFormat is telecom's text face (tasks.TextFace): the rules of the
// setting as a system prompt, the call's opening and each reply in words,
// and short instructions for the headers. Moves are the token protocol's
// words: "line L2", "bar", "say droam", "done".
func (t *Task) TextFormat() tasks.TextFormat {
	devices := `Phone tools (yours): bar (the status bar: plane, nosim, nobars, sos or bars), settings (airplane mode, mobile data, data roaming: on or off each), test (the connectivity test: no-service, no-data or works), airplane, data, droam (toggle airplane mode, mobile data, data roaming), reseat (take the SIM out and put it, or the new one, back), restart.`
	if t.setting == dual {
		devices = `The phone is the customer's: you cannot use it yourself (a phone tool called directly is an error, err). Ask the customer to act with a message: say followed by one phone action, e.g. say settings. Phone actions: bar (read the status bar), settings (read airplane mode, mobile data, data roaming), test (read the symptom), airplane, data, droam (toggle a switch), reseat (reseat the SIM), restart. After a message the customer does it and tells you what they see: a reading, or the symptom they now have (no-service, no-data or works).`
	}
	system := fmt.Sprintf(`You are a telecom support agent on a call. The customer's line or phone is broken in one or two ways; the call opens with the setting, the customer's complaint (no-service or no-data) and their line id (L0 to L%d). Find the faults, repair exactly what is broken, and close the call. You have at most %d turns; every turn is one action.

Account tools (name the customer's line, e.g. line L2): line (status active or suspended, roaming on or off, location home or abroad), usage (data left, out or none, and the plan voice, basic or premium), topup (add credit), refuel (buy extra data), roaming (enable roaming on the line), plan (move one plan up), newsim (issue a new SIM).
%s
Closing actions: done (the job is finished) or transfer (hand over to a human: only when the phone itself is broken).

Replies: readings name the fields in order; ok means a write was accepted, err a tool error, repeat that you already read this and nothing changed since, invalid that your move was malformed. You succeed only if every fault is repaired, nothing else was changed (no needless charge, toggle, plan change or SIM), and the call is closed the right way.

A move is one action, e.g. line L2, usage L2, settings, say droam, done.`,
		t.cfg.Lines-1, t.cfg.MaxTurns, devices)
	phrases := map[string]string{
		"<bos>":   "Call:",
		"solo":    "setting solo (you hold the account and the phone tools),",
		"dual":    "setting dual (you hold the account tools; the customer holds the phone),",
		"act":     "\nYour move: one action.",
		"last":    "\nYour move: one action; this is the last turn.",
		"invalid": "invalid (your last move was malformed)",
		"repeat":  "repeat (nothing changed since you last asked)",
	}
	return tasks.TextFormat{System: system, Phrases: phrases}
}

package study

import (
	"encoding/json"

	"arew/rl"
)

// LockQBT are the hasty belief knobs of the lock candidates of docs/arew.md
// §8, step 3, in the rule's order (the smallest, most locked, first); their
// questions are broken with probability LockQAS.
var LockQBT = []float64{0.02, 0.06, 0.15}

// LockQAS is the candidates' query knob (the anchor's q).
const LockQAS = 0.03

// lockedBase is the locked base recipe of a Table 1 setting (docs/arew.md
// §8, steps 2 and 3), FloDial-Easy's (FloDialEasyLocked) on another task:
// a small policy, 32,768 strong demonstrations under the careful style and
// 8,192 locked(LockQAS, qBT) ones under the hasty style on the setting's
// layout (step 1's), 300 validation demonstrations of each held out, 6
// SFT epochs of minibatches of 16 at lr 1e-3, seed 1.
func lockedBase(task string, layout json.RawMessage, qBT float64) rl.BaseConfig {
	sft := rl.DefaultSFTConfig()
	sft.Epochs = 6
	return rl.BaseConfig{Task: task, Preset: "small", Seed: 1, SFT: sft, Sources: rl.LockedRecipe{
		Layout: layout, Strong: 32768, Locked: 8192, TestDemos: 300, QAS: LockQAS, QBT: qBT}.Sources()}
}

// lockCandidates are the step-3 candidates of the settings whose capability
// is met (§8, "Capability: measured"), named as FloDial-Easy's: <setting>-locked
// for q_BT 0.02, <setting>-locked-bt006 and -bt015. MediQ and telecom's two
// settings are on their plain layouts, FloDial-Hard on the echo layout (telecom's
// q_BT is its decisions' knob: tasks/telecom doc, "Scripted policies"). Which one a setting's base is,
// the rule of step 3 decides from their validation tables
// (docs/results/base-<name>/); only that one is shipped.
var lockCandidates = map[string]func() rl.BaseConfig{
	"mediq-locked":              func() rl.BaseConfig { return lockedBase("mediq", nil, 0.02) },
	"mediq-locked-bt006":        func() rl.BaseConfig { return lockedBase("mediq", nil, 0.06) },
	"mediq-locked-bt015":        func() rl.BaseConfig { return lockedBase("mediq", nil, 0.15) },
	"flodial-hard-locked":       func() rl.BaseConfig { return lockedBase("flodial-hard", echo, 0.02) },
	"flodial-hard-locked-bt006": func() rl.BaseConfig { return lockedBase("flodial-hard", echo, 0.06) },
	"flodial-hard-locked-bt015": func() rl.BaseConfig { return lockedBase("flodial-hard", echo, 0.15) },
	"telecom-solo-locked":       func() rl.BaseConfig { return lockedBase("telecom-solo", nil, 0.02) },
	"telecom-solo-locked-bt006": func() rl.BaseConfig { return lockedBase("telecom-solo", nil, 0.06) },
	"telecom-solo-locked-bt015": func() rl.BaseConfig { return lockedBase("telecom-solo", nil, 0.15) },
	"telecom-dual-locked":       func() rl.BaseConfig { return lockedBase("telecom-dual", nil, 0.02) },
	"telecom-dual-locked-bt006": func() rl.BaseConfig { return lockedBase("telecom-dual", nil, 0.06) },
	"telecom-dual-locked-bt015": func() rl.BaseConfig { return lockedBase("telecom-dual", nil, 0.15) },
}

func init() {
	for name, recipe := range lockCandidates {
		Bases[name] = recipe
	}
}

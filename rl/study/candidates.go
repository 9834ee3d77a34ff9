package study

import (
	"encoding/json"
	"fmt"
	"math"

	"arew/rl"
	"arew/tasks"
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

// LockCandidate is the name of setting's lock candidate with the hasty
// belief knob qBT: <setting>-locked for the first of LockQBT, else
// <setting>-locked-bt<q_BT in hundredths, three digits> (-bt006, -bt015).
func LockCandidate(setting string, qBT float64) string {
	if qBT == LockQBT[0] {
		return setting + lockedSuffix
	}
	return fmt.Sprintf("%s%s-bt%03d", setting, lockedSuffix, int(math.Round(100*qBT)))
}

const lockedSuffix = "-locked"

// lockLayouts are the settings whose capability is met (§8, "Capability:
// measured") beside FloDial-Easy, each on step 1's layout: MediQ and
// telecom's two settings on their plain layouts, FloDial-Hard on the echo
// layout (telecom's q_BT is its decisions' knob: tasks/telecom doc,
// "Scripted policies").
var lockLayouts = []struct {
	setting string
	layout  json.RawMessage
}{{"mediq", nil}, {"flodial-hard", echo}, {"telecom-solo", nil}, {"telecom-dual", nil}}

// lockCandidates are the step-3 candidates of lockLayouts' settings, one
// per q_BT of LockQBT, named by LockCandidate as FloDial-Easy's are. Which
// one a setting's base is, the rule of step 3 decides from their
// validation tables (docs/results/base-<name>/; LockChoice); only that
// one is shipped.
var lockCandidates = map[string]func() rl.BaseConfig{}

func init() {
	for _, l := range lockLayouts {
		for _, q := range LockQBT {
			recipe := func() rl.BaseConfig { return lockedBase(l.setting, l.layout, q) }
			lockCandidates[LockCandidate(l.setting, q)] = recipe
			Bases[LockCandidate(l.setting, q)] = recipe
		}
	}
	for _, q := range LockQBT {
		recipe := func() rl.BaseConfig { return lockedCurriculum(q) }
		lockCandidates[LockCandidate("pe-f-d6", q)] = recipe
		Bases[LockCandidate("pe-f-d6", q)] = recipe
	}
}

// lockedCurriculum is PE-F D=6's lock candidate with the hasty belief
// knob qBT (docs/arew.md §8, "Step 3", PE-F D=6: no recipe meets step 1's
// target, so the candidates are built on its best one,
// pe-f-d6-echo-then-pairs-dagger-base): that recipe's two strong sources
// under the careful style (the echo layout, then the echo and pairs
// layout, whose source is named careful), and beside the second, for the
// same epochs, 8,192 locked(LockQAS, qBT) demonstrations on the same
// layout under the hasty style; the DAgger rounds play the careful
// source, and their aggregate keeps the hasty demonstrations.
func lockedCurriculum(qBT float64) rl.BaseConfig {
	c := peD6Best()
	c.Sources[0].Name, c.Sources[0].Style = tasks.Careful+"-echo", tasks.Careful
	c.Sources[1].Name, c.Sources[1].Style = tasks.Careful, tasks.Careful
	hasty := rl.LockedRecipe{Layout: c.Sources[1].TaskConfig, Locked: 8192, TestDemos: 300, QAS: LockQAS, QBT: qBT}.Sources()[1]
	hasty.Epochs = c.Sources[1].Epochs
	c.Sources = append(c.Sources, hasty)
	c.DAgger.Source = tasks.Careful
	return c
}

// hastyQBT is the hasty belief knob of a lock candidate's recipe: the
// q_BT of its source named hasty (rl.LockedRecipe names its sources after
// their styles; 0 for a recipe without one).
func hastyQBT(c rl.BaseConfig) float64 {
	for _, s := range c.Sources {
		if s.Name == tasks.Hasty {
			return s.Policy.QBT
		}
	}
	return 0
}

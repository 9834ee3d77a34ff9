package study

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"arew/model"
	"arew/rl"
	"arew/rl/run"
)

// shipped holds the base policies this package ships, one
// bases/<name>.safetensors per shipped entry of Bases, built by that
// entry's recipe (`go run ./cmd/train -build-base <name>` rebuilds one).
//
//go:embed bases/*.safetensors
var shipped embed.FS

func shippedPath(name string) string { return "bases/" + name + ".safetensors" }

// Bases are the recipes of the bases, by name: the shipped ones (a file in
// bases/, Shipped) and the lock candidates of docs/arew.md §8 not chosen
// (yet), which `-build-base` builds all the same.
var Bases = map[string]func() rl.BaseConfig{
	"flodial-easy-locked": FloDialEasyLocked,
	// The robustness bases of docs/arew.md §7, fixed before any RL on
	// them: the shipped recipe with the hasty belief knob q_BT at 0.06 and
	// 0.15 instead of 0.02.
	"flodial-easy-locked-bt006": func() rl.BaseConfig { return lockedWithBT(0.06) },
	"flodial-easy-locked-bt015": func() rl.BaseConfig { return lockedWithBT(0.15) },
}

// BaseNames lists the bases' recipes, sorted.
func BaseNames() []string { return slices.Sorted(maps.Keys(Bases)) }

// CheckBaseName is nil when -build-base can build name, and otherwise an
// InputError that lists the shipped bases and the lock candidates apart.
func CheckBaseName(name string) error {
	if _, ok := Bases[name]; ok {
		return nil
	}
	return run.InputErrorf("-build-base: no base recipe %q (shipped: %s; lock candidates: %s)",
		name, strings.Join(ShippedNames(), ", "), strings.Join(CandidateNames(), ", "))
}

// Shipped says whether this package ships base name's file.
func Shipped(name string) bool {
	_, err := fs.Stat(shipped, shippedPath(name))
	return err == nil
}

// ShippedNames lists the shipped bases, sorted.
func ShippedNames() []string { return baseNames(true) }

// CandidateNames lists the bases that are not shipped (the lock
// candidates the rule did not choose, or not yet), sorted.
func CandidateNames() []string { return baseNames(false) }

// baseNames lists the bases that are shipped, or those that are not.
func baseNames(shipped bool) []string {
	return slices.DeleteFunc(BaseNames(), func(n string) bool { return Shipped(n) != shipped })
}

// checkShipped is nil when base name is shipped, else an error naming it.
func checkShipped(name string) error {
	if _, ok := Bases[name]; !ok {
		return fmt.Errorf("no base %q (shipped: %s)", name, strings.Join(ShippedNames(), ", "))
	}
	if !Shipped(name) {
		return fmt.Errorf("base %q is not shipped yet: its lock is not chosen (docs/arew.md §8, step 3); `go run ./cmd/train -build-base %s` builds it", name, name)
	}
	return nil
}

// LoadShipped loads a shipped base.
func LoadShipped(name string) (*model.Model, error) {
	if err := checkShipped(name); err != nil {
		return nil, err
	}
	data, err := shipped.ReadFile(shippedPath(name))
	if err != nil {
		return nil, err
	}
	m, _, err := model.LoadBytes(name, data)
	return m, err
}

// echo is the task config of every flodial-easy arm and base: the echo
// layout (tasks/flodial doc, "Echo"); a base adds the style to it.
var echo = json.RawMessage(`{"Echo": true}`)

// hastyPerFault is the task of the RL studies: the hasty style of the echo
// layout with the per-fault critiques (critiques change no observation, so
// the base's demonstrations are the same under either).
var hastyPerFault = json.RawMessage(`{"Echo": true, "Style": "hasty", "Critiques": "per-fault"}`)

// FloDialEasyLocked is the capable but locked base of the AREW studies
// (docs/arew.md §6), made by the shared locked recipe (rl.LockedRecipe): a
// small policy (d 64, 2 layers) that learns both skills from 32,768 strong
// demonstrations under the careful style, and a confidently uninformed
// behaviour from 8,192 locked(0.03, 0.02) demonstrations under the hasty
// style (questions that cannot split the consistent set, broken with
// probability 0.03; a flat belief held every round and a constant final
// answer, broken with probability 0.02), 6 SFT epochs of minibatches of 16
// at lr 1e-3, seed 1. RL runs under the hasty style; the careful style
// shows the skills are still in the weights.
func FloDialEasyLocked() rl.BaseConfig { return lockedBase("flodial-easy", echo, 0.02) }

// lockedWithBT is FloDialEasyLocked with the hasty demonstrator's belief
// knob at qBT: with probability qBT a belief follows the evidence.
func lockedWithBT(qBT float64) rl.BaseConfig {
	c := FloDialEasyLocked()
	c.Sources[1].Policy.QBT = qBT
	return c
}

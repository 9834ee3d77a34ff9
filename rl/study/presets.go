package study

import (
	"fmt"
	"slices"
	"strings"

	"arew/rl"
)

// Presets are the named studies (`go run ./cmd/train -study <name>`), each
// a function building its Config. Adding one is a function and a line
// here.
var Presets = map[string]func() Config{
	"smoke": Smoke,
}

// Preset is the named preset's Config.
func Preset(name string) (Config, error) {
	f, ok := Presets[name]
	if !ok {
		return Config{}, fmt.Errorf("unknown study preset %q (known: %s)", name, strings.Join(PresetNames(), ", "))
	}
	return f(), nil
}

// PresetNames lists the presets in order.
func PresetNames() []string {
	names := make([]string, 0, len(Presets))
	for n := range Presets {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Smoke is the machinery's check, seconds on two cores: the four standard
// arms × 2 seeds × 6 updates of 8 episodes on flodial-easy, from a tiny
// base built in the study by a short SFT on the self-locked demonstrator
// (weak, q_as = q_bt = 0.2), evaluated every 2 updates on 16 test
// instances. Its numbers mean nothing; its files have every field.
func Smoke() Config {
	sft := rl.DefaultSFTConfig()
	sft.Epochs = 2
	p := rl.DefaultPPOConfig()
	p.Episodes = 8
	p.Policy.MiniBatch, p.Policy.Epochs = 4, 1
	p.Policy.Optim.LR = 3e-4
	return Config{
		Name: "smoke",
		Task: "flodial-easy",
		Base: Base{Preset: "tiny", Demos: 64, Seed: 1, SFT: sft,
			Demonstrator: Demonstrator{Kind: "weak", QAS: 0.2, QBT: 0.2}},
		Arms:    StandardArms(0.5, "step"),
		Seeds:   []uint64{1, 2},
		Algo:    "ppo",
		Updates: 6,
		PPO:     &p,
		Eval:    EvalConfig{Every: 2, Episodes: 16, Modes: "both", Thresholds: DefaultThresholds},
	}
}

package study

import (
	"fmt"

	"arew/kernels"
	"arew/rl"
	"arew/rl/run"
	"arew/tasks"
)

// Presets are the named studies (`go run ./cmd/train -study <name>`), each
// a function building its Config. Adding one is a function and a line
// here.
var Presets = map[string]func() Config{
	"smoke":                Smoke,
	"default":              Default,
	"flodial":              FloDial,
	"tune-vanilla-flodial": TuneVanilla,
	"tune-lambda-flodial":  TuneLambda,
	"flodial-critiques":    FloDialCritiques,
	"robust-flodial-bt006": func() Config { return Robustness("flodial-easy-locked-bt006", AdoptedRule) },
	"robust-flodial-bt015": func() Config { return Robustness("flodial-easy-locked-bt015", AdoptedRule) },
	"table2-flodial":       func() Config { return Table2(AdoptedRule) },
	"lambda-flodial":       func() Config { return LambdaTable(AdoptedRule) },
	"algos-flodial-grpo":   func() Config { return Algos(rl.AlgoGRPO, AdoptedRule) },
	"algos-flodial-gspo":   func() Config { return Algos(rl.AlgoGSPO, AdoptedRule) },
}

// Preset is the named preset's Config. A preset whose gate fails (a
// suite member whose setting is not Ready, a tuning sweep without its
// base) and a suite are errors that say what is missing (a suite runs by
// RunSuite).
func Preset(name string) (Config, error) {
	if err := gate(name); err != nil {
		return Config{}, err
	}
	if suite, ok := Suites[name]; ok {
		s := suite()
		if err := s.Ready(); err != nil {
			return Config{}, err
		}
		return Config{}, fmt.Errorf("%s is a suite of %d studies, run by RunSuite", name, len(s.Settings))
	}
	return run.LookupPreset("study", Presets, name)
}

// PresetNames lists the presets in order, then the suites.
func PresetNames() []string { return append(run.PresetNames(Presets), run.PresetNames(Suites)...) }

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
		Base: Base{Build: &rl.BaseConfig{Task: "flodial-easy", Preset: "tiny", Seed: 1, SFT: sft, Sources: []rl.DemoSource{
			{Name: "weak", Policy: tasks.PolicySpec{Kind: "weak", QAS: 0.2, QBT: 0.2}, Demos: 64}}}},
		Arms:      StandardArms(0.5, kernels.MarginStep),
		Seeds:     []uint64{1, 2},
		Algorithm: rl.Algorithm{Algo: rl.AlgoPPO, PPO: &p},
		Updates:   6,
		Eval:      EvalConfig{run.EvalConfig{Every: 2, Episodes: 16, Modes: "both"}, DefaultThresholds},
	}
}

// flodialRecipe is the RL recipe of the AREW studies on flodial-easy
// (docs/arew.md §6, "The RL recipe"): RL under the hasty style of the
// shipped locked base, with the task's per-fault critiques (the consistent
// AS rule, each fault's belief level judged on its own); PPO with rl's
// defaults (GAE γ = λ = 1 with whitening, a separate critic, clip 0.2,
// minibatches of 16, no entropy bonus, no KL) at actor lr 3e-4, 64
// episodes per update; AREW λ 3 in the paper's step mode, one margin over
// all critiqued steps. Every arm shares it: an arm changes only the
// critiques AREW reads. λ was chosen on tuning seeds 101–104, which no
// preset uses.
func flodialRecipe(name string, arms []Arm, seeds []uint64, updates, every int) Config {
	p := rl.DefaultPPOConfig()
	p.Episodes = 64
	p.Policy.Optim.LR = 3e-4
	return Config{
		Name: name, Task: "flodial-easy", TaskConfig: hastyPerFault,
		Base: Base{Shipped: "flodial-easy-locked"},
		Arms: arms, Seeds: seeds, Algorithm: rl.Algorithm{Algo: rl.AlgoPPO, PPO: &p}, Updates: updates,
		Eval: EvalConfig{run.EvalConfig{Every: every, Episodes: 200, Modes: "both", Split: "val", Test: FinalTestEpisodes}, DefaultThresholds},
	}
}

// FinalTestEpisodes is how many test instances a study's final evaluation
// plays, greedy and sampled.
const FinalTestEpisodes = 1000

// recipeLambda is the AREW λ of flodialRecipe's arms.
const recipeLambda = 3

// Default is what `go run ./cmd/train` runs: vanilla PPO and AREW AS+BT
// from the shipped locked base, one seed, 240 updates each (what fits in
// about six minutes on two cores), evaluated every 40 updates on 200 test
// instances.
func Default() Config {
	return flodialRecipe("default", StandardArms(recipeLambda, kernels.MarginStep)[:2], []uint64{1}, 240, 40)
}

// FloDial is the anchor's protocol: the four standard arms × 5 seeds ×
// 200 updates of 64 episodes, evaluated every 20 updates on 200 test
// instances. The seeds are not those the recipe was tuned on (101–104).
func FloDial() Config {
	return flodialRecipe("flodial", StandardArms(recipeLambda, kernels.MarginStep), []uint64{1, 2, 3, 4, 5}, 200, 20)
}

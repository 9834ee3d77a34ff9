package study

import (
	"fmt"
	"strings"

	"arew/kernels"
	"arew/rl"
)

// The studies that follow the critique ladder (docs/arew.md §7, "The
// adopted critique"): the robustness check on the two other bases, and
// the paper's other FloDial tables. Each is built for a critique rule,
// the rule the adoption rule (Summary.Adopted) picks from the ladder's
// results, at its selected λ; they become presets when the ladder is
// complete and its rule adopted.

// LadderTurnLevel are the ladder arms the adoption rule chooses among, in
// its tie order: the turn-level rules (per-fault gives one sign per level
// token, so it is not a candidate).
var LadderTurnLevel = []string{"arew-spec", "arew-consistent", "arew-mass", "arew-majority"}

// AdoptedRule is the critique rule the adoption rule (Summary.Adopted)
// picked from the ladder's committed summary
// (docs/results/flodial-critiques/); TestAdoptedRuleFollowsTheLadder
// checks it.
const AdoptedRule = "mass"

// TableSeeds are the seeds of the other FloDial tables: the first three
// final seeds.
var TableSeeds = FinalSeeds[:3]

// Robustness is the robustness check on the shipped base named base:
// vanilla-tuned and AREW with the rule, the final seeds, paired against
// vanilla-tuned.
func Robustness(base, rule string) Config {
	name := "robust-flodial-" + strings.TrimPrefix(base, "flodial-easy-locked-")
	c := flodialRecipe(name, []Arm{vanillaTuned(), ruleArm(rule, "arew-"+rule, SelectedLambda[rule])}, FinalSeeds, 200, 20)
	c.Base = Base{Shipped: base}
	c.Reference, c.Margin = "vanilla-tuned", LadderMargin
	return c
}

// TableFlips are the flip probabilities α of table2-flodial.
var TableFlips = []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5}

// Table2 is the paper's Table 2 on FloDial-Easy: the rule with every
// critique's sign flipped with probability α ∈ TableFlips, beside
// vanilla-tuned, on TableSeeds (flip-0 is the rule's arm itself; flip-0.5
// is a direction control).
func Table2(rule string) Config {
	arms := []Arm{vanillaTuned()}
	for _, alpha := range TableFlips {
		a := ruleArm(rule, fmt.Sprintf("flip-%g", alpha), SelectedLambda[rule])
		a.AREW.Perturb.Flip = alpha
		arms = append(arms, a)
	}
	c := flodialRecipe("table2-flodial", arms, TableSeeds, 200, 20)
	c.Reference, c.Margin = "vanilla-tuned", LadderMargin
	return c
}

// TableLambdas are the margin weights of lambda-flodial.
var TableLambdas = []float64{0.3, 1, 3, 10}

// LambdaTable is the λ sensitivity: the rule at λ ∈ TableLambdas, beside
// vanilla-tuned, on TableSeeds.
func LambdaTable(rule string) Config {
	arms := []Arm{vanillaTuned()}
	for _, lambda := range TableLambdas {
		arms = append(arms, ruleArm(rule, fmt.Sprintf("lambda-%g", lambda), lambda))
	}
	c := flodialRecipe("lambda-flodial", arms, TableSeeds, 200, 20)
	c.Reference, c.Margin = "vanilla-tuned", LadderMargin
	return c
}

// Algos is one half of algos-flodial: vanilla and AREW with the rule
// under GRPO ("grpo": 16 prompts × 5 rollouts, the group baseline)
// or GSPO ("gspo": the sequence ratio with GSPO's clip range), rl's
// defaults but the PPO recipe's learning rate 3e-4, on TableSeeds, paired
// against vanilla.
func Algos(algo rl.Algo, rule string) Config {
	arew := ruleArm(rule, "arew-"+rule, SelectedLambda[rule])
	c := flodialRecipe(fmt.Sprintf("algos-flodial-%s", algo), []Arm{StandardArms(0, kernels.MarginStep)[0], arew}, TableSeeds, 200, 20)
	c.Algorithm = rl.DefaultAlgorithm(algo)
	c.GRPO.Policy.Optim.LR = 3e-4
	c.Reference, c.Margin = "vanilla", LadderMargin
	return c
}

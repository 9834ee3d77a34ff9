package study

import (
	"arew/kernels"
	"arew/tasks/flodial"
)

// The selections the pre-registered rule (Summary.Selected, docs/arew.md
// §7) made on the validation split, from the tuning sweeps' committed
// summaries (docs/results/tune-vanilla-flodial/ and tune-lambda-flodial/);
// TestLadderFollowsTheSweeps reads those files and checks every value.
var (
	// SelectedVanilla is the recipe of TuneVanilla the rule picked: actor
	// lr 3e-4, entropy bonus 0.01, 8 optimiser steps per update.
	SelectedVanilla = vanillaArm(3e-4, 0.01, 8)
	// SelectedLambda is, per critique rule, the λ the rule picked among
	// the rule's arms of TuneLambda.
	SelectedLambda = map[string]float64{"spec": 3, "consistent": 3, "mass": 10, "majority": 3, "per-fault": 10}
)

// DirectionControlFlip is the sign-flip probability of the random arm:
// at α = 0.5 a critique's sign says nothing of its direction.
const DirectionControlFlip = 0.5

// directionControl is arm a named name with every critique's sign flipped
// with probability DirectionControlFlip: the same margin, no direction.
func directionControl(a Arm, name string) Arm {
	a.Name, a.AREW.Perturb.Flip = name, DirectionControlFlip
	return a
}

// LadderMargin is the paired gap in final test sampled success that
// counts as a result in the ladder and the robustness check.
const LadderMargin = 0.3

// LadderArms are the arms of the critique ladder: vanilla (the §6
// recipe), vanilla-tuned (SelectedVanilla), AREW AS+BT under each critique
// rule at its SelectedLambda (arew-<rule>), and random, the direction
// control: per-fault at its λ with every sign flipped with probability
// DirectionControlFlip.
func LadderArms() []Arm {
	arms := []Arm{StandardArms(0, kernels.MarginStep)[0], vanillaTuned()}
	for _, rule := range flodial.CritiqueRules {
		arms = append(arms, ruleArm(rule, "arew-"+rule, SelectedLambda[rule]))
	}
	return append(arms, directionControl(ruleArm("per-fault", "arew-per-fault", SelectedLambda["per-fault"]), "random"))
}

// ruleArm is AREW AS+BT with the critique rule at λ, named name.
func ruleArm(rule, name string, lambda float64) Arm {
	a := lambdaArm(rule, lambda)
	a.Name, a.Family = name, ""
	return a
}

// vanillaTuned is the vanilla sweep's selected recipe, vanilla-tuned.
func vanillaTuned() Arm {
	a := SelectedVanilla
	a.Name = "vanilla-tuned"
	return a
}

// FloDialCritiques is the critique ladder (docs/arew.md §7): LadderArms ×
// the final seeds × 200 updates, validation every 20 updates, the final
// 1000 test instances greedy and sampled, every arm paired with
// vanilla-tuned by seed against LadderMargin.
func FloDialCritiques() Config {
	c := flodialRecipe("flodial-critiques", LadderArms(), FinalSeeds, 200, 20)
	c.Reference, c.Margin = "vanilla-tuned", LadderMargin
	return c
}

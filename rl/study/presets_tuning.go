package study

import (
	"encoding/json"
	"fmt"

	"arew/kernels"
	"arew/tasks/flodial"
)

// The seeds of the FloDial protocol (docs/arew.md, "Protocol"): tuning
// sweeps use TuningSeeds and read only the validation split; final studies
// use FinalSeeds. No study reported in docs/arew.md §6 uses either.
var (
	TuningSeeds = []uint64{201, 202}
	FinalSeeds  = []uint64{301, 302, 303, 304, 305}
)

// tuningRecipe is flodialRecipe for a sweep: the tuning seeds, 200
// updates, evaluations on 200 validation instances every 50 updates, both
// modes, no test split, and the arms ranked by the selection rule.
func tuningRecipe(name string, arms []Arm) Config {
	c := flodialRecipe(name, arms, TuningSeeds, 200, 50)
	c.Eval.Split = "val"
	c.Eval.Test = 0
	c.Tuning = true
	return c
}

// VanillaSweepArms are the vanilla recipes of the sweep that makes
// vanilla-tuned: actor lr {1e-4, 3e-4, 1e-3} × entropy bonus {0, 0.01} ×
// {1, 8} optimiser steps per update (one epoch of one 64-episode
// minibatch, or the recipe's two epochs of four 16-episode minibatches).
func VanillaSweepArms() []Arm {
	var arms []Arm
	for _, lr := range []float64{1e-4, 3e-4, 1e-3} {
		for _, ent := range []float64{0, 0.01} {
			for _, steps := range []int{1, 8} {
				arms = append(arms, vanillaArm(lr, ent, steps))
			}
		}
	}
	return arms
}

// vanillaArm is vanilla PPO at actor lr, entropy bonus ent and 1 (one
// epoch of one 64-episode minibatch) or 8 (two epochs of four 16-episode
// minibatches) optimiser steps per update: vanilla-lr<lr>-ent<ent>-steps<n>.
func vanillaArm(lr, ent float64, steps int) Arm {
	epochs, mini := 1, 64
	if steps == 8 {
		epochs, mini = 2, 16
	}
	patch := fmt.Sprintf(`{"policy": {"epochs": %d, "mini_batch": %d, "entropy_coef": %g, "optim": {"lr": %g}}}`, epochs, mini, ent, lr)
	return Arm{
		Name: fmt.Sprintf("vanilla-lr%g-ent%g-steps%d", lr, ent, steps),
		AREW: StandardArms(0, kernels.MarginStep)[0].AREW,
		PPO:  json.RawMessage(patch),
	}
}

// TuneVanilla is the vanilla sweep on validation: the 12 recipes of
// VanillaSweepArms × the 2 tuning seeds × 200 updates. Its selected arm is
// vanilla-tuned in the final studies.
func TuneVanilla() Config { return tuningRecipe("tune-vanilla-flodial", VanillaSweepArms()) }

// SweepLambdas are the AREW margin weights each critique rule is tuned
// over.
var SweepLambdas = []float64{1, 3, 10}

// LambdaSweepArms are AREW AS+BT under every FloDial critique rule at
// every λ of SweepLambdas, with the recipe's other settings: arew-<rule>-l<λ>.
func LambdaSweepArms() []Arm {
	var arms []Arm
	for _, rule := range flodial.CritiqueRules {
		for _, lambda := range SweepLambdas {
			arms = append(arms, lambdaArm(rule, lambda))
		}
	}
	return arms
}

// lambdaArm is AREW AS+BT under the critique rule at λ, in the rule's
// family: arew-<rule>-l<λ>.
func lambdaArm(rule string, lambda float64) Arm {
	a := StandardArms(lambda, kernels.MarginStep)[1]
	a.Name = fmt.Sprintf("arew-%s-l%g", rule, lambda)
	a.Family = rule
	a.TaskConfig = critiquesConfig(rule)
	return a
}

// critiquesConfig is the task config that selects a critique rule.
func critiquesConfig(rule string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"Critiques": %q}`, rule))
}

// TuneLambda is the λ sweep on validation: AREW AS+BT under each of the
// five critique rules × λ ∈ SweepLambdas × the 2 tuning seeds × 200
// updates. The selection rule, applied to each rule's three arms, fixes
// that rule's λ in the final studies; the random-sign control takes
// per-fault's.
func TuneLambda() Config { return tuningRecipe("tune-lambda-flodial", LambdaSweepArms()) }

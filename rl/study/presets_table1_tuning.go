package study

import (
	"encoding/json"
	"fmt"

	"arew/kernels"
	"arew/rl"
)

// TuneVanillaSetting is §8 step 4's vanilla sweep on a Table 1 setting:
// the twelve recipes of VanillaSweepArms from the setting's base, as
// tune-vanilla-flodial is FloDial-Easy's (tuningRecipe: the tuning seeds,
// 200 updates, 200 validation instances every 50, no test split, ranked
// by the selection rule). Its selection is the setting's vanilla-tuned.
func TuneVanillaSetting(s Setting) Config {
	return s.tuning("tune-vanilla-"+s.Name, VanillaSweepArms())
}

// TuneLambdaSetting is §8 step 4's λ sweep on a Table 1 setting: AREW
// AS+BT under the paper's rule (Setting.Rule) at each λ of SweepLambdas
// (arew-l<λ>), one family. Its selection is the setting's λ, for AS+BT
// and AS-only alike.
func TuneLambdaSetting(s Setting) Config {
	return s.tuning("tune-lambda-"+s.Name, lambdaSweep(s.Rule))
}

// TuneLambdaFiner is the same λ sweep under the setting's finer critique
// rule (Setting.FinerRule; tune-lambda-<setting>-<rule>): its selection is
// the λ of the setting's finer-rule arms. The finer rule gets the three λ
// the paper's rule got, and vanilla-tuned is the same for both.
func TuneLambdaFiner(s Setting) Config {
	return s.tuning("tune-lambda-"+s.Name+"-"+s.FinerRule, lambdaSweep(critiquesConfig(s.FinerRule)))
}

// lambdaSweep is AREW AS+BT under the task config rule at each λ of
// SweepLambdas (arew-l<λ>), one family.
func lambdaSweep(rule json.RawMessage) []Arm {
	var arms []Arm
	for _, lambda := range SweepLambdas {
		arms = append(arms, Arm{Name: fmt.Sprintf("arew-l%g", lambda), TaskConfig: rule,
			AREW: rl.AREW{Critiques: rl.CritiquesBoth, Lambda: lambda, Mode: kernels.MarginStep}})
	}
	return arms
}

// tuning is tuningRecipe on the setting's task, task config and base.
func (s Setting) tuning(name string, arms []Arm) Config {
	c := tuningRecipe(name, arms)
	c.Task, c.TaskConfig, c.Base = s.Task, s.TaskConfig, Base{Shipped: s.Base}
	return c
}

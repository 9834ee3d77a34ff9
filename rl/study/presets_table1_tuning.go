package study

import (
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
	var arms []Arm
	for _, lambda := range SweepLambdas {
		arms = append(arms, Arm{Name: fmt.Sprintf("arew-l%g", lambda), TaskConfig: s.Rule,
			AREW: rl.AREW{Critiques: rl.CritiquesBoth, Lambda: lambda, Mode: kernels.MarginStep}})
	}
	return s.tuning("tune-lambda-"+s.Name, arms)
}

// tuning is tuningRecipe on the setting's task, task config and base.
func (s Setting) tuning(name string, arms []Arm) Config {
	c := tuningRecipe(name, arms)
	c.Task, c.TaskConfig, c.Base = s.Task, s.TaskConfig, Base{Shipped: s.Base}
	return c
}

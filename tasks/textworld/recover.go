package textworld

import (
	"fmt"
	"math/rand/v2"

	"arew/tasks"
)

// Recovery is what CheckRecovery found for one game.
type Recovery struct {
	// Tested: the random prefix left the game open, so the expert took over.
	Tested bool
	// Success: the expert then reached the goal.
	Success bool
}

// CheckRecovery plays prefix random admissible actions on env, then the
// expert until the end, and fails if an expert action is not admissible.
// It is how the environments' tests show that the planner replans from
// states off its own path (states a learner reaches).
func CheckRecovery(env Env, prefix int, rng *rand.Rand) (Recovery, error) {
	for k := 0; k < prefix && !env.Done(); k++ {
		adm := env.Admissible()
		if _, err := env.Step(adm[rng.IntN(len(adm))]); err != nil {
			return Recovery{}, err
		}
	}
	if env.Done() {
		return Recovery{}, nil
	}
	for !env.Done() {
		a := env.Expert()
		if !Contains(env.Admissible(), a) {
			return Recovery{Tested: true}, fmt.Errorf("expert action %q is not admissible", env.Vocab().Decode(a))
		}
		if _, err := env.Step(append([]tasks.Token(nil), a...)); err != nil {
			return Recovery{Tested: true}, err
		}
	}
	return Recovery{Tested: true, Success: env.Success()}, nil
}

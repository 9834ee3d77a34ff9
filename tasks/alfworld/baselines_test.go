package alfworld

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks/textworld"
	"arew/tasks/textworld/textworldtest"
)

// TestBaselines measures the package doc's table: the random admissible
// policy and the expert on every split (go test -run TestBaselines -v
// ./tasks/alfworld/), plus the sizing figures: expert pairs, admissible
// list length, and the chance that a guess among the receptacles where
// training puts the target's type finds it first.
func TestBaselines(t *testing.T) {
	w := world(t)
	for _, split := range splits {
		n := w.cfg.Sizes().Size(split)
		for _, p := range []textworld.Policy{textworld.RandomAdmissible{}, textworld.Expert{}} {
			r, err := textworld.Evaluate(w.Env(split), n, p, textworld.History, rand.New(rand.NewPCG(7, 7)))
			require.NoError(t, err)
			t.Logf("%-8v %-7s success %.3f  steps %5.2f  nothing-happens %.3f  repeats %.2f", split, r.Policy, r.Success, r.MeanSteps, r.Inapplicable, r.RepeatedFailures)
			if p.Name() == "expert" {
				assert.Equal(t, 1.0, r.Success)
			} else {
				assert.Less(t, r.Success, 0.35)
			}
		}
		pairs, err := textworld.Dataset(w, split, n, textworld.History)
		require.NoError(t, err)
		textworldtest.LogPairs(t, split, pairs, w.vocab)
		hit := 0.0
		for i := 0; i < n; i++ {
			in, err := w.Instance(split, i)
			require.NoError(t, err)
			hit += priorHit(in)
		}
		t.Logf("%-8v prior first-guess hit %.3f", split, hit/float64(n))
	}
}

// priorHit is the chance that a uniform guess among the receptacles of the
// target type's usual classes is where the (first) target lies.
func priorHit(in *Instance) float64 {
	usual := objectType(in.Target).usual
	cands := 0
	for _, r := range in.Recs {
		for _, c := range usual {
			if r.Class == c {
				cands++
			}
		}
	}
	src := in.Recs[in.Objects[in.Targets[0]].Rec].Class
	for _, c := range usual {
		if c == src {
			return 1 / float64(cands)
		}
	}
	return 0
}

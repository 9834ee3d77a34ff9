package alfworld

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks/textworld"
)

// TestBaselines measures the package doc's table: the random admissible
// policy and the expert on every split (go test -run TestBaselines -v
// ./tasks/alfworld/), plus the sizing figures: expert pairs, admissible
// list length, and the chance that a guess among the receptacles where
// training puts the target's type finds it first.
func TestBaselines(t *testing.T) {
	w := world(t)
	for _, split := range splits {
		n := splitSize(w, split)
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
		pairs, adm, hit, toks, longest := 0, 0, 0.0, 0, 0
		for i := 0; i < n; i++ {
			e, err := w.NewEnv(split, i)
			require.NoError(t, err)
			hit += priorHit(e.in)
			ps, err := textworld.ExpertPairs(e, textworld.History)
			require.NoError(t, err)
			pairs += len(ps)
			for _, p := range ps {
				adm += len(p.State.Admissible)
				n := len(p.State.Tokens(w.vocab))
				toks, longest = toks+n, max(longest, n)
			}
		}
		t.Logf("%-8v pairs %d  mean admissible %.1f  prior first-guess hit %.3f  prompt tokens mean %.0f max %d", split, pairs, float64(adm)/float64(pairs), hit/float64(n), float64(toks)/float64(pairs), longest)
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

package telecom

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
)

// randomTurn draws a turn for the Bayes tests: mostly valid actions, some
// malformed ones, calls on a wrong line and device actions called as tools.
func randomTurn(e *Episode, rng *rand.Rand) []tasks.Token {
	switch r := rng.IntN(10); {
	case r == 0:
		return []tasks.Token{tasks.Token(rng.IntN(vocabulary.Size() + 3))}
	case r == 1:
		return []tasks.Token{opToken(op(rng.IntN(int(opNewsim) + 1))), lineToken(rng.IntN(maxLines))}
	case r == 2:
		return []tasks.Token{opToken(opBar + op(rng.IntN(int(opRestart-opBar)+1)))}
	}
	as := e.validActions()
	for {
		a := as[rng.IntN(len(as))]
		if !a.op.close() || rng.IntN(8) == 0 {
			return a.tokens()
		}
	}
}

// TestBayesMatchesBruteForce runs the exact filter beside brute-force
// enumeration: for every configuration h, a full episode with truth h is fed
// the same agent tokens, and h is consistent iff that episode shows the agent
// exactly the same tokens (prompt and every observation). The brute-force
// posterior is the prior times that 0/1 likelihood, renormalised
// (tasks.Belief.Update); the filter's posterior must equal it after every
// step, sum to 1, and keep mass on the truth.
func TestBayesMatchesBruteForce(t *testing.T) {
	tiny := DefaultConfig()
	tiny.Faults = []string{"airplane", "sim", "broken", "quota"}
	for _, tc := range []struct {
		setting string
		cfg     Config
	}{{"solo", DefaultConfig()}, {"dual", DefaultConfig()}, {"solo", tiny}, {"dual", tiny}} {
		task, err := New(tc.setting, tc.cfg)
		require.NoError(t, err)
		rng := rand.New(rand.NewPCG(7, 1))
		for idx := 0; idx < 25; idx++ {
			ep, err := task.NewEpisode(tasks.Test, idx)
			require.NoError(t, err)
			e := ep.(*Episode)
			replays := make([]*Episode, len(task.prior.configs))
			consistent := make([]bool, len(replays))
			for i, c := range task.prior.configs {
				replays[i] = newEpisode(task, c, e.line)
				consistent[i] = slices.Equal(replays[i].Prompt(), e.Prompt())
			}
			for !e.Done() {
				act := randomTurn(e, rng)
				obs, _, err := e.Step(act)
				require.NoError(t, err)
				for i, r := range replays {
					if consistent[i] {
						robs, _, err := r.Step(act)
						require.NoError(t, err)
						consistent[i] = slices.Equal(robs, obs)
					}
				}
				brute, err := tasks.Belief(task.prior.mass).Update(func(h int) float64 { return float64(b2i(consistent[h])) })
				require.NoError(t, err)
				post := e.Posterior()
				require.InDeltaSlice(t, []float64(brute), post, 1e-12, "%s %v instance %d", tc.setting, e.truth, idx)
				sum := 0.0
				for _, p := range post {
					sum += p
				}
				assert.InDelta(t, 1, sum, 1e-12)
				assert.Positive(t, post[task.prior.index[e.truth]])
			}
		}
	}
}

// With the strong policy every configuration ends identified: Ψ(b̄_H) = 1,
// so I_AS = 1 − Ψ(b̄_0), where Ψ(b̄_0) is the prior of the truth among the
// configurations with the same complaint.
func TestIASOfStrongPolicy(t *testing.T) {
	for _, s := range []string{"solo", "dual"} {
		task, err := New(s, DefaultConfig())
		require.NoError(t, err)
		pol, err := task.Scripted(tasks.PolicySpec{Kind: "strong"})
		require.NoError(t, err)
		for i, c := range task.prior.configs {
			e := newEpisode(task, c, 0)
			w0 := newWorld(c)
			same := 0.0
			for j, d := range task.prior.configs {
				wd := newWorld(d)
				if wd.symptom() == w0.symptom() {
					same += task.prior.mass[j]
				}
			}
			psi0 := task.prior.mass[i] / same
			assert.InDelta(t, psi0, e.TruthMass(), 1e-12)
			m, err := tasks.Play(e, pol, rand.New(rand.NewPCG(1, 1)), 100)
			require.NoError(t, err)
			assert.True(t, m.Success, "%s %v", s, c)
			assert.InDelta(t, 1.0, e.TruthMass(), 1e-12, "%s %v identified", s, c)
			assert.InDelta(t, 1-psi0, m.IAS, 1e-12)
			assert.Equal(t, 1.0, m.Evidence, "every decision backed by the evidence")
			assert.True(t, math.IsNaN(m.BTProxy) && math.IsNaN(m.CBT), "no belief turns")
		}
	}
}

func TestInfoGainIsZeroExactlyWhenNoSplit(t *testing.T) {
	task, err := New("dual", DefaultConfig())
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(3, 3))
	for idx := 0; idx < 30; idx++ {
		ep, err := task.NewEpisode(tasks.Train, idx)
		require.NoError(t, err)
		e := ep.(*Episode)
		for !e.Done() {
			for _, a := range e.validActions() {
				if a.op.read() {
					rep := e.isRepeat(a)
					g := e.hyp.infoGain(a, dual, e.line, rep)
					assert.Equal(t, e.hyp.splits(a, dual, e.line, rep), g > 1e-12, "%v", a)
					assert.GreaterOrEqual(t, g, 0.0)
				}
			}
			_, _, err := e.Step(randomTurn(e, rng))
			require.NoError(t, err)
		}
	}
}

package pe

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
)

// The episode's consistent set is the exact Bayes posterior's support: after
// every step it equals a brute-force enumeration of the hypotheses that
// give every reply so far, and tasks.Belief's sequential updates with the
// 0/1 likelihoods give the uniform distribution on it (summing to 1).
func TestBayesMatchesBruteForce(t *testing.T) {
	pef := tinyConfig()
	pef.Focus, pef.Dims, pef.Movies = 0, 4, 5
	for _, cfg := range []Config{tinyConfig(), pef} {
		cfg.Particles = 40
		task := newTask(t, cfg)
		for _, spec := range []tasks.PolicySpec{{Kind: "random"}, {Kind: "weak", QAS: 0.7, QBT: 0.5}, {Kind: "strong"}} {
			pol, err := task.Scripted(spec)
			require.NoError(t, err)
			for i := 0; i < 30; i++ {
				e, err := task.newEpisode(tasks.Train, i)
				require.NoError(t, err)
				rng := rand.New(rand.NewPCG(5, uint64(i)))
				belief := tasks.Uniform(e.hyp.size())
				var asked []Query
				for !e.Done() {
					a, err := pol.Act(e, rng)
					require.NoError(t, err)
					if i%3 == 0 && rng.IntN(4) == 0 {
						a = a[:len(a)-1] // now and then a malformed action
					}
					_, st := step(t, e, a)
					if st.Kind == tasks.AS && !st.Malformed && !st.Repeat {
						qy, err := task.parseQuery(a)
						require.NoError(t, err)
						asked = append(asked, qy)
						r := reply(e.inst.truth, qy, e.inst.table, cfg.EqualTol)
						belief, err = belief.Update(func(h int) float64 {
							if reply(e.hyp.at(h), qy, e.inst.table, cfg.EqualTol) == r {
								return 1
							}
							return 0
						})
						require.NoError(t, err)
					}
					want := bruteConsistent(e, asked)
					require.Equal(t, want, e.consistent)
					assert.Contains(t, want, int32(e.inst.truthIdx), "w* is always consistent")
					sum := 0.0
					for h, p := range belief {
						sum += p
						if contains(want, h) {
							assert.InDelta(t, 1/float64(len(want)), p, 1e-12)
						} else {
							assert.Zero(t, p)
						}
					}
					assert.InDelta(t, 1, sum, 1e-12)
				}
			}
		}
	}
}

func bruteConsistent(e *Episode, asked []Query) []int32 {
	var out []int32
	for h := 0; h < e.hyp.size(); h++ {
		ok := true
		for _, q := range asked {
			ok = ok && reply(e.hyp.at(h), q, e.inst.table, e.t.cfg.EqualTol) == reply(e.inst.truth, q, e.inst.table, e.t.cfg.EqualTol)
		}
		if ok {
			out = append(out, int32(h))
		}
	}
	return out
}

func contains(set []int32, h int) bool {
	for _, x := range set {
		if int(x) == h {
			return true
		}
	}
	return false
}

// The strong policy's reply entropies equal a count of reply's answers, with
// and without leaving out the dominated queries.
func TestReplyEntropiesBruteForce(t *testing.T) {
	for _, name := range []string{"pe-g-s3", "pe-f-d6"} {
		task := newTask(t, fastConfig(t, name, 128))
		for i := 0; i < 3; i++ {
			e, err := task.newEpisode(tasks.Test, i)
			require.NoError(t, err)
			require.True(t, e.hyp.allPositive())
			rng := rand.New(rand.NewPCG(9, uint64(i)))
			set := e.hyp.all()
			if i > 0 { // a random subset
				rng.Shuffle(len(set), func(a, b int) { set[a], set[b] = set[b], set[a] })
				set = set[:10*i]
			}
			all := e.hyp.replyEntropies(set, newQueryDiffs(task.qs, e.inst.table, false), task.cfg.EqualTol)
			skip := e.hyp.replyEntropies(set, newQueryDiffs(task.qs, e.inst.table, true), task.cfg.EqualTol)
			for qi := 0; qi < task.qs.size(); qi++ {
				var counts [3]float64
				for _, h := range set {
					counts[reply(e.hyp.at(int(h)), task.qs.query(qi), e.inst.table, task.cfg.EqualTol)+1]++
				}
				want := 0.0
				for _, c := range counts {
					if c > 0 {
						want -= c / float64(len(set)) * math.Log(c/float64(len(set)))
					}
				}
				require.InDelta(t, want, all[qi], 1e-12, "query %d", qi)
				require.InDelta(t, want, skip[qi], 1e-12, "query %d", qi)
			}
		}
	}
}

// With a zero weight a dominated query can split the hypotheses (Equal vs
// Yes), so the shortcut must be off, and it is.
func TestDominatedShortcutNeedsPositiveWeights(t *testing.T) {
	e := handEpisode(t, nil, [][]float64{{0.5, 0, 0.5}})
	require.False(t, e.hyp.allPositive())
	q := Query{[]int{0, 1}, 5, 3} // d = (0, 3): dominated
	require.True(t, dominated(q, e.inst.table))
	assert.Equal(t, Equal, reply(e.hyp.at(0), q, e.inst.table, 0.3))
	assert.Equal(t, Yes, reply(e.inst.truth, q, e.inst.table, 0.3))
	best := e.bestQuery() // builds the diffs as the policy does
	idx, _ := e.t.qs.index(q)
	ent := e.hyp.replyEntropies(e.consistent, e.diffs, e.t.cfg.EqualTol)
	assert.InDelta(t, math.Ln2, ent[idx], 1e-12)
	assert.NotEmpty(t, best.Focus)
}

// Ψ of a posterior is the cosine of its mean unit vector to w*; the prior's
// uses the cached sum.
func TestPsi(t *testing.T) {
	ws := [][]float64{{0.1, 0.6, 0.3}, {0.5, 0.4, 0.1}, {0.3, 0.3, 0.4}}
	e := handEpisode(t, nil, ws)
	mean := func(hs [][]float64) []float64 {
		m := make([]float64, 3)
		for _, h := range hs {
			for k, x := range unit(h) {
				m[k] += x / float64(len(hs))
			}
		}
		return m
	}
	all := append(append([][]float64(nil), ws...), e.inst.truth)
	assert.InDelta(t, cosine(mean(all), e.inst.truth), e.hyp.psi(e.hyp.all()), 1e-15)
	assert.InDelta(t, cosine(mean(ws[1:2]), e.inst.truth), e.hyp.psi([]int32{1}), 1e-15)
	assert.InDelta(t, 1, e.hyp.psi([]int32{3}), 1e-15, "a posterior on w* alone")
	assert.InDelta(t, e.psiPrior, e.hyp.psi(e.hyp.all()), 0)
}

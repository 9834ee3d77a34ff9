package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type groupFunc func(p Packed, scores []float32, groups []int32, norm GroupNorm, out []float32) error

var groupImpls = []struct {
	name string
	fn   groupFunc
}{{"GroupBaselineRef", GroupBaselineRef}, {"GroupBaseline", GroupBaseline}}

// Six trajectories, interleaved groups: group 0 = {0, 3, 5} with scores
// {1, 0, 1}, group 1 = {2} alone with 0.7, group 2 = {1, 4} with {0.5, 0.5}.
var (
	handScores = []float32{1, 0.5, 0.7, 0, 0.5, 1}
	handGroups = []int32{0, 2, 1, 0, 2, 0}
)

func TestGroupAdvantagesHandComputed(t *testing.T) {
	// Group 0: μ = 2/3, σ² = ((1/3)² + (2/3)² + (1/3)²)/(3 − 1) = (6/9)/2 = 1/3,
	// σ = 0.5773503, so A = (1/3)/(σ+1e-6) = 0.5773493 for the 1s and
	// (−2/3)/(σ+1e-6) = −1.1546985 for the 0.
	// Group 1 (one member): μ = 0, σ = 1, so A = 0.7/(1 + 1e-6) = 0.6999993.
	// Group 2: σ = 0, so A = 0/(0 + 1e-6) = 0.
	adv := make([]float32, 6)
	require.NoError(t, GroupAdvantagesRef(handScores, handGroups, GRPONorm, adv))
	assert.InDeltaSlice(t, []float32{0.5773493, 0, 0.6999993, -1.1546985, 0, 0.5773493}, adv, 1e-6)

	// Dr. GRPO: mean subtraction only; the lone member keeps its score (μ = 0).
	require.NoError(t, GroupAdvantagesRef(handScores, handGroups, DrGRPONorm, adv))
	assert.InDeltaSlice(t, []float32{1.0 / 3, 0, 0.7, -2.0 / 3, 0, 1.0 / 3}, adv, 1e-6)

	// ε = 0.5 shows ε is added to σ, not to σ²: (1/3)/(0.5773503 + 0.5) = 0.3094011.
	require.NoError(t, GroupAdvantagesRef(handScores, handGroups, GroupNorm{Std: true, Eps: 0.5}, adv))
	assert.InDelta(t, 0.3094011, adv[0], 1e-6)
}

func TestGroupBaselineBroadcast(t *testing.T) {
	// The six trajectories of TestGroupAdvantagesHandComputed, with
	// observation tokens, an empty trajectory (3) and an observation-only one (4).
	p := Packed{
		Offsets: []int32{0, 3, 5, 6, 6, 8, 10},
		Mask:    []uint8{0, 1, 1, 1, 0, 1, 0, 0, 1, 1},
	}
	for _, impl := range groupImpls {
		t.Run(impl.name, func(t *testing.T) {
			out := filled(10, 9)
			require.NoError(t, impl.fn(p, handScores, handGroups, DrGRPONorm, out))
			third := float32(1.0 / 3)
			assert.InDeltaSlice(t, []float32{0, third, third, 0, 0, 0.7, 0, 0, third, third}, out, 1e-6)
		})
	}
}

// TestGroupBaselineProperties checks on random batches, groups of random
// size and ids: each agent token holds its trajectory's advantage, each group
// of two or more sums to 0 and, with σ, has unbiased variance (σ/(σ+ε))².
func TestGroupBaselineProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	sizes := []struct{ nb, maxLen int }{{0, 0}, {1, 3}, {5, 10}, {40, 60}, {64, 256}, {300, 300}}
	for _, s := range sizes {
		p, _ := randomBatch(r, s.nb, s.maxLen)
		scores := randomFloats(r, s.nb)
		groups := make([]int32, s.nb)
		for i := range groups {
			groups[i] = int32(r.IntN(max(1, s.nb/4)))
		}
		for _, impl := range groupImpls {
			for _, norm := range []GroupNorm{GRPONorm, DrGRPONorm} {
				out := filled(p.NumTokens(), 3)
				require.NoError(t, impl.fn(p, scores, groups, norm, out))
				perTraj := make([]float32, s.nb)
				require.NoError(t, GroupAdvantagesRef(scores, groups, norm, perTraj))
				for b := range s.nb {
					lo, hi := p.Span(b)
					for k := lo; k < hi; k++ {
						want := perTraj[b]
						if p.Mask[k] == 0 {
							want = 0
						}
						assert.Equal(t, want, out[k])
					}
				}
				members := map[int32][]int{}
				for i, g := range groups {
					members[g] = append(members[g], i)
				}
				for _, m := range members {
					if len(m) < 2 {
						continue
					}
					sum, ss, raw := 0.0, 0.0, 0.0
					mu := 0.0
					for _, i := range m {
						sum += float64(perTraj[i])
						mu += float64(scores[i]) / float64(len(m))
					}
					for _, i := range m {
						ss += float64(perTraj[i]) * float64(perTraj[i])
						raw += (float64(scores[i]) - mu) * (float64(scores[i]) - mu)
					}
					assert.InDelta(t, 0, sum, 1e-5)
					if norm.Std {
						sigma := math.Sqrt(raw / float64(len(m)-1))
						want := sigma / (sigma + norm.Eps)
						assert.InDelta(t, want*want, ss/float64(len(m)-1), 1e-4)
					}
				}
			}
		}
	}
}

func TestGroupBaselineNaNStaysInItsGroup(t *testing.T) {
	scores := append([]float32(nil), handScores...)
	scores[3] = float32(math.NaN()) // a member of group 0 = {0, 3, 5}
	adv := make([]float32, 6)
	require.NoError(t, GroupAdvantagesRef(scores, handGroups, GRPONorm, adv))
	for i, g := range handGroups {
		assert.Equal(t, g == 0, math.IsNaN(float64(adv[i])), "trajectory %d of group %d", i, g)
	}
}

func TestGroupBaselineErrors(t *testing.T) {
	p := Packed{Offsets: []int32{0, 1, 2, 3}, Mask: []uint8{1, 1, 1}}
	cases := []struct {
		name    string
		p       Packed
		scores  []float32
		groups  []int32
		norm    GroupNorm
		out     []float32
		errPart string
	}{
		{"bad packed", Packed{Offsets: []int32{0, 1, 2, 4}, Mask: p.Mask}, []float32{1, 2, 3}, []int32{0, 0, 1}, GRPONorm, make([]float32, 3), "offsets[B] = 4"},
		{"short scores", p, []float32{1, 2}, []int32{0, 0, 1}, GRPONorm, make([]float32, 3), "scores has 2 entries, want B = 3"},
		{"short groups", p, []float32{1, 2, 3}, []int32{0, 0}, GRPONorm, make([]float32, 3), "groups and adv have 3, 2 and 3"},
		{"short out", p, []float32{1, 2, 3}, []int32{0, 0, 1}, GRPONorm, make([]float32, 2), "out has 2 entries, want T = 3"},
		{"group id too large", p, []float32{1, 2, 3}, []int32{0, 3, 1}, GRPONorm, make([]float32, 3), "group id 3 of trajectory 1 is outside [0, B = 3)"},
		{"negative group id", p, []float32{1, 2, 3}, []int32{0, -1, 1}, GRPONorm, make([]float32, 3), "group id -1"},
		{"negative eps", p, []float32{1, 2, 3}, []int32{0, 0, 1}, GroupNorm{Std: true, Eps: -1}, make([]float32, 3), "eps = -1"},
		{"NaN eps", p, []float32{1, 2, 3}, []int32{0, 0, 1}, GroupNorm{Std: true, Eps: math.NaN()}, make([]float32, 3), "eps = NaN"},
	}
	for _, impl := range groupImpls {
		for _, c := range cases {
			t.Run(impl.name+"/"+c.name, func(t *testing.T) {
				for i := range c.out {
					c.out[i] = 4
				}
				err := impl.fn(c.p, c.scores, c.groups, c.norm, c.out)
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.errPart)
				assert.Equal(t, filled(len(c.out), 4), c.out, "no output written before the error")
			})
		}
	}
	// Dr. GRPO ignores ε, so any ε is fine there.
	assert.NoError(t, GroupBaseline(p, []float32{1, 2, 3}, []int32{0, 0, 1}, GroupNorm{Eps: -1}, make([]float32, 3)))
}

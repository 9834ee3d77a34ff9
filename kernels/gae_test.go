package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gaeFunc is GAERef or GAE.
type gaeFunc func(p Packed, rewards, values []float32, gamma, lambda float64, adv, ret []float32) error

var gaeImpls = []struct {
	name string
	fn   gaeFunc
}{{"GAERef", GAERef}, {"GAE", GAE}}

// allAgent is one trajectory of n agent tokens.
func allAgent(n int) Packed {
	mask := make([]uint8, n)
	for i := range mask {
		mask[i] = 1
	}
	return Packed{Offsets: []int32{0, int32(n)}, Mask: mask}
}

func TestGAEHandComputed(t *testing.T) {
	rewards := []float32{0.5, 0, 1}
	values := []float32{0.5, 0.2, 0.7}
	cases := []struct {
		name          string
		gamma, lambda float64
		adv, ret      []float32
	}{
		// γ = λ = 1: A_t = G_t − V_t with G_t the undiscounted return to go:
		// G = (0.5+0+1, 0+1, 1) = (1.5, 1, 1); A = (1.0, 0.8, 0.3); R = G.
		{"gamma=lambda=1 is return minus value", 1, 1, []float32{1.0, 0.8, 0.3}, []float32{1.5, 1, 1}},
		// γ = 0.9, λ = 1: G_2 = 1, G_1 = 0 + 0.9·1 = 0.9, G_0 = 0.5 + 0.9·0.9 = 1.31;
		// A = G − V = (0.81, 0.7, 0.3).
		{"lambda=1 is discounted return minus value", 0.9, 1, []float32{0.81, 0.7, 0.3}, []float32{1.31, 0.9, 1}},
		// λ = 0: A_t = δ_t = r_t + γ·V_{t+1} − V_t with V_3 = 0 (terminal):
		// δ_2 = 1 − 0.7 = 0.3, δ_1 = 0 + 0.9·0.7 − 0.2 = 0.43, δ_0 = 0.5 + 0.9·0.2 − 0.5 = 0.18;
		// R = A + V = (0.68, 0.63, 1.0).
		{"lambda=0 is the one-step TD error", 0.9, 0, []float32{0.18, 0.43, 0.3}, []float32{0.68, 0.63, 1.0}},
		// γ = 0.9, λ = 0.5: A_2 = 0.3, A_1 = 0.43 + 0.45·0.3 = 0.565,
		// A_0 = 0.18 + 0.45·0.565 = 0.43425.
		{"general gamma lambda", 0.9, 0.5, []float32{0.43425, 0.565, 0.3}, []float32{0.93425, 0.765, 1.0}},
	}
	for _, impl := range gaeImpls {
		for _, c := range cases {
			t.Run(impl.name+"/"+c.name, func(t *testing.T) {
				adv, ret := make([]float32, 3), make([]float32, 3)
				require.NoError(t, impl.fn(allAgent(3), rewards, values, c.gamma, c.lambda, adv, ret))
				assert.InDeltaSlice(t, c.adv, adv, 1e-6)
				assert.InDeltaSlice(t, c.ret, ret, 1e-6)
			})
		}
	}
}

func TestGAESkipsObservationTokens(t *testing.T) {
	// The trajectory of TestGAEHandComputed with observation tokens around and
	// between its agent tokens; their values (9, −3, 4, 2) must not matter.
	p := Packed{Offsets: []int32{0, 7}, Mask: []uint8{0, 1, 0, 0, 1, 1, 0}}
	rewards := []float32{0, 0.5, 0, 0, 0, 1, 0}
	values := []float32{9, 0.5, -3, 4, 0.2, 0.7, 2}
	adv, ret := filled(7, 5), filled(7, 5)
	require.NoError(t, GAERef(p, rewards, values, 0.9, 0.5, adv, ret))
	// Same numbers as "general gamma lambda" above, 0 on observation tokens.
	assert.InDeltaSlice(t, []float32{0, 0.43425, 0, 0, 0.565, 0.3, 0}, adv, 1e-6)
	assert.InDeltaSlice(t, []float32{0, 0.93425, 0, 0, 0.765, 1.0, 0}, ret, 1e-6)
}

// TestGAESkipEqualsRemoval checks on random batches that GAE with observation
// tokens equals GAE on the same trajectories with those tokens cut out.
func TestGAESkipEqualsRemoval(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 20 {
		p, _ := randomBatch(r, 1+r.IntN(10), 80)
		rewards, values := randomFloats(r, p.NumTokens()), randomFloats(r, p.NumTokens())
		// The compact batch: agent tokens only, same trajectories.
		cOffsets := []int32{0}
		var cMask []uint8
		var cRewards, cValues []float32
		for b := range p.NumTrajectories() {
			lo, hi := p.Span(b)
			for t := lo; t < hi; t++ {
				if p.Mask[t] == 1 {
					cMask = append(cMask, 1)
					cRewards = append(cRewards, rewards[t])
					cValues = append(cValues, values[t])
				} else {
					rewards[t] = 0 // rewards live on agent tokens only
				}
			}
			cOffsets = append(cOffsets, int32(len(cMask)))
		}
		c := Packed{Offsets: cOffsets, Mask: cMask}
		gamma, lambda := r.Float64(), r.Float64()
		adv, ret := make([]float32, p.NumTokens()), make([]float32, p.NumTokens())
		cAdv, cRet := make([]float32, c.NumTokens()), make([]float32, c.NumTokens())
		require.NoError(t, GAERef(p, rewards, values, gamma, lambda, adv, ret))
		require.NoError(t, GAERef(c, cRewards, cValues, gamma, lambda, cAdv, cRet))
		j := 0
		for i := range p.Mask {
			if p.Mask[i] == 0 {
				assert.Zero(t, adv[i])
				assert.Zero(t, ret[i])
				continue
			}
			// Same float64 arithmetic in the same order: equal bit for bit.
			assert.Equal(t, cAdv[j], adv[i])
			assert.Equal(t, cRet[j], ret[i])
			j++
		}
	}
}

// TestGAEMatchesDirectSum checks the recursion against the closed form
// A_t = Σ_l (γλ)^l δ_{t+l}, summed directly over each trajectory's agent
// tokens (O(n²)), on random batches from empty to 300 trajectories.
func TestGAEMatchesDirectSum(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	sizes := []struct{ nb, maxLen int }{{0, 0}, {1, 0}, {1, 1}, {3, 5}, {17, 40}, {64, 256}, {300, 300}}
	for _, s := range sizes {
		p, _ := randomBatch(r, s.nb, s.maxLen)
		rewards, values := randomFloats(r, p.NumTokens()), randomFloats(r, p.NumTokens())
		for k, m := range p.Mask {
			if m == 0 {
				rewards[k] = 0
			}
		}
		gamma, lambda := r.Float64(), r.Float64()
		adv, ret := filled(p.NumTokens(), 7), filled(p.NumTokens(), 7)
		require.NoError(t, GAE(p, rewards, values, gamma, lambda, adv, ret))
		for b := range p.NumTrajectories() {
			lo, hi := p.Span(b)
			var idx []int // the agent tokens, in order
			for k := lo; k < hi; k++ {
				if p.Mask[k] == 1 {
					idx = append(idx, k)
				} else {
					assert.Zero(t, adv[k])
					assert.Zero(t, ret[k])
				}
			}
			for i, k := range idx {
				want, w := 0.0, 1.0
				for l := i; l < len(idx); l++ {
					next := 0.0
					if l+1 < len(idx) {
						next = float64(values[idx[l+1]])
					}
					want += w * (float64(rewards[idx[l]]) + gamma*next - float64(values[idx[l]]))
					w *= gamma * lambda
				}
				assert.InDelta(t, want, float64(adv[k]), 1e-5, "B=%d trajectory %d token %d", s.nb, b, k)
				assert.InDelta(t, want+float64(values[k]), float64(ret[k]), 1e-5)
			}
		}
	}
}

func TestGAEEdges(t *testing.T) {
	for _, impl := range gaeImpls {
		t.Run(impl.name+"/B=0", func(t *testing.T) {
			require.NoError(t, impl.fn(Packed{Offsets: []int32{0}}, nil, nil, 1, 1, nil, nil))
		})
		t.Run(impl.name+"/empty and observation-only trajectories", func(t *testing.T) {
			// [] , [obs obs], [agent], []
			p := Packed{Offsets: []int32{0, 0, 2, 3, 3}, Mask: []uint8{0, 0, 1}}
			adv, ret := filled(3, 5), filled(3, 5)
			require.NoError(t, impl.fn(p, []float32{0, 0, 2}, []float32{1, 1, 0.5}, 1, 1, adv, ret))
			assert.Equal(t, []float32{0, 0, 1.5}, adv)
			assert.Equal(t, []float32{0, 0, 2}, ret)
		})
		t.Run(impl.name+"/negative zero reward on an observation token is fine", func(t *testing.T) {
			p := Packed{Offsets: []int32{0, 2}, Mask: []uint8{1, 0}}
			adv, ret := make([]float32, 2), make([]float32, 2)
			negZero := float32(math.Copysign(0, -1))
			require.NoError(t, impl.fn(p, []float32{1, negZero}, []float32{0.25, 3}, 1, 1, adv, ret))
			assert.Equal(t, []float32{0.75, 0}, adv)
		})
		t.Run(impl.name+"/NaN stays in its trajectory", func(t *testing.T) {
			r := rand.New(rand.NewPCG(9, 10))
			p, _ := regularBatch(r, 4, 256)
			rewards, values := make([]float32, p.NumTokens()), randomFloats(r, p.NumTokens())
			lo, hi := p.Span(1)
			nanAt := -1
			for t := hi - 1; t >= lo; t-- { // the last agent token of trajectory 1
				if p.Mask[t] == 1 {
					nanAt = t
					break
				}
			}
			rewards[nanAt] = float32(math.NaN())
			adv, ret := make([]float32, p.NumTokens()), make([]float32, p.NumTokens())
			require.NoError(t, impl.fn(p, rewards, values, 1, 0.95, adv, ret))
			for i := range adv {
				inTraj1 := i >= lo && i < hi
				if inTraj1 && p.Mask[i] == 1 {
					assert.True(t, math.IsNaN(float64(adv[i])), "token %d", i)
				} else {
					assert.False(t, math.IsNaN(float64(adv[i])), "token %d", i)
					assert.False(t, math.IsNaN(float64(ret[i])), "token %d", i)
				}
			}
		})
	}
}

func TestGAEErrors(t *testing.T) {
	p := Packed{Offsets: []int32{0, 2, 4}, Mask: []uint8{1, 0, 1, 1}}
	ok := func() ([]float32, []float32) { return []float32{1, 0, 0, 1}, []float32{0.1, 0.2, 0.3, 0.4} }
	cases := []struct {
		name    string
		edit    func(p *Packed, rewards, values *[]float32, gamma, lambda *float64, adv *[]float32)
		errPart string
	}{
		{"bad offsets", func(p *Packed, _, _ *[]float32, _, _ *float64, _ *[]float32) {
			p.Offsets = []int32{0, 3, 2, 4}
		}, "negative length"},
		{"short rewards", func(_ *Packed, r, _ *[]float32, _, _ *float64, _ *[]float32) { *r = (*r)[:3] }, "rewards has 3 entries"},
		{"long values", func(_ *Packed, _, v *[]float32, _, _ *float64, _ *[]float32) { *v = append(*v, 1) }, "values has 5 entries"},
		{"short adv", func(_ *Packed, _, _ *[]float32, _, _ *float64, a *[]float32) { *a = (*a)[:1] }, "adv has 1 entries"},
		{"gamma > 1", func(_ *Packed, _, _ *[]float32, g, _ *float64, _ *[]float32) { *g = 1.5 }, "gamma = 1.5"},
		{"gamma NaN", func(_ *Packed, _, _ *[]float32, g, _ *float64, _ *[]float32) { *g = math.NaN() }, "gamma = NaN"},
		{"lambda < 0", func(_ *Packed, _, _ *[]float32, _, l *float64, _ *[]float32) { *l = -0.1 }, "lambda = -0.1"},
		{"reward on observation token", func(_ *Packed, r, _ *[]float32, _, _ *float64, _ *[]float32) {
			(*r)[1] = 0.5
		}, "reward 0.5 on observation token 1"},
		{"NaN reward on observation token after a NaN on an agent token", func(_ *Packed, r, _ *[]float32, _, _ *float64, _ *[]float32) {
			(*r)[0] = float32(math.NaN())
			(*r)[1] = float32(math.NaN())
		}, "reward NaN on observation token 1"},
	}
	for _, impl := range gaeImpls {
		for _, c := range cases {
			t.Run(impl.name+"/"+c.name, func(t *testing.T) {
				q := Packed{Offsets: append([]int32(nil), p.Offsets...), Mask: p.Mask}
				rewards, values := ok()
				gamma, lambda := 1.0, 0.95
				adv, ret := filled(4, 3), filled(4, 3)
				c.edit(&q, &rewards, &values, &gamma, &lambda, &adv)
				err := impl.fn(q, rewards, values, gamma, lambda, adv, ret)
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.errPart)
				assert.Equal(t, filled(4, 3), ret, "no output written before the error")
			})
		}
	}
}

func TestMaskedWhiten(t *testing.T) {
	// verl's docstring example: agent values 1, 2, 3 and a padded 100.
	// μ = 2, σ² = ((−1)² + 0² + 1²)/(3 − 1) = 1, so x ← (x − 2)/sqrt(1 + 1e-8).
	p := Packed{Offsets: []int32{0, 2, 4}, Mask: []uint8{1, 1, 0, 1}}
	x := []float32{1, 2, 100, 3}
	require.NoError(t, MaskedWhiten(p, x))
	assert.InDeltaSlice(t, []float32{-1, 0, 0, 1}, x, 1e-6)

	// Two values 0 and 4: μ = 2, σ² = (4 + 4)/1 = 8, x ← ±2/sqrt(8) = ±0.70711.
	x = []float32{0, 4, 0, 0}
	p.Mask = []uint8{1, 1, 0, 0}
	require.NoError(t, MaskedWhitenRef(p, x))
	assert.InDeltaSlice(t, []float32{-0.70710678, 0.70710678, 0, 0}, x, 1e-6)

	// Random: whitened agent tokens have mean 0 and unbiased variance ≈ 1.
	r := rand.New(rand.NewPCG(11, 12))
	q, _ := regularBatch(r, 16, 256)
	y := randomFloats(r, q.NumTokens())
	for i := range y {
		y[i] = 3*y[i] + 5
	}
	require.NoError(t, MaskedWhiten(q, y))
	n, s, ss := 0, 0.0, 0.0
	for i, m := range q.Mask {
		if m == 1 {
			n++
			s += float64(y[i])
			ss += float64(y[i]) * float64(y[i])
		} else {
			assert.Zero(t, y[i])
		}
	}
	assert.InDelta(t, 0, s/float64(n), 1e-5)
	assert.InDelta(t, 1, ss/float64(n-1), 1e-4)

	// Fewer than two agent tokens: an error, x untouched.
	one := Packed{Offsets: []int32{0, 3}, Mask: []uint8{0, 1, 0}}
	z := []float32{1, 2, 3}
	err := MaskedWhiten(one, z)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "1 agent tokens")
	assert.Equal(t, []float32{1, 2, 3}, z)
	assert.Error(t, MaskedWhiten(Packed{Offsets: []int32{0}}, nil), "B = 0 has no agent token")
	assert.Error(t, MaskedWhiten(p, x[:3]), "x must have T entries")
}

package kernels

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type marginFunc func(p Packed, steps Steps, mode MarginMode, lambda float64, out []float32, accumulate bool) error

var marginImpls = []struct {
	name string
	fn   marginFunc
}{{"MarginCorrectionRef", MarginCorrectionRef}, {"MarginCorrection", MarginCorrection}}

var allModes = []MarginMode{MarginStep, MarginStepSpread, MarginMinorityFixed, MarginAbsSum}

// handMargin is one trajectory of 9 tokens, three steps:
//
//	token  0 1 2 3 4 5 6 7 8
//	mask   1 1 0 1 1 1 0 1 1
//	step   [a ) [b      )[c    )      a = [0,2) z=+1, b = [2,6) z=−1, c = [6,9) z=+1
//
// Only agent tokens count: a has 2 (0, 1), b has 3 (3, 4, 5; token 2 is an
// observation), c has 2 (7, 8). So |P| = 2, |N| = 1, s+ = 4, s− = 3.
var handMargin = struct {
	p     Packed
	steps Steps
}{
	Packed{Offsets: []int32{0, 9}, Mask: []uint8{1, 1, 0, 1, 1, 1, 0, 1, 1}},
	Steps{Offsets: []int32{0, 3}, Start: []int32{0, 2, 6}, End: []int32{2, 6, 9}, Critique: []int8{1, -1, 1}},
}

func TestMarginHandComputed(t *testing.T) {
	cases := []struct {
		mode MarginMode
		u    []float32
	}{
		// step (copied): +1/|P| = +1/2 on every agent token of a and c, −1/|N| = −1 on b.
		// Over steps: 1/2 + 1/2 − 1 = 0. Over tokens: 4·(1/2) − 3·1 = −1 ≠ 0.
		{MarginStep, []float32{0.5, 0.5, 0, -1, -1, -1, 0, 0.5, 0.5}},
		// step_spread: a and c each share 1/2 over 2 tokens (1/4 each), b shares
		// −1 over 3 tokens (−1/3 each). Over tokens: 4·(1/4) − 3·(1/3) = 0.
		{MarginStepSpread, []float32{0.25, 0.25, 0, -1.0 / 3, -1.0 / 3, -1.0 / 3, 0, 0.25, 0.25}},
		// minority_fixed: s− = 3 < s+ = 4, so the negative tokens get −1 and the
		// positive ones +s−/s+ = +3/4. Over tokens: 4·(3/4) − 3·1 = 0.
		{MarginMinorityFixed, []float32{0.75, 0.75, 0, -1, -1, -1, 0, 0.75, 0.75}},
		// abs_sum: +1/(2·4) = 1/8 per positive token, −1/(2·3) = −1/6 per negative
		// one. Over tokens: 4/8 − 3/6 = 0, and Σ|u| = 1.
		{MarginAbsSum, []float32{0.125, 0.125, 0, -1.0 / 6, -1.0 / 6, -1.0 / 6, 0, 0.125, 0.125}},
	}
	for _, impl := range marginImpls {
		for _, c := range cases {
			t.Run(impl.name+"/"+c.mode.String(), func(t *testing.T) {
				out := filled(9, 9)
				require.NoError(t, impl.fn(handMargin.p, handMargin.steps, c.mode, 1, out, false))
				assert.InDeltaSlice(t, c.u, out, 1e-7)

				// λ scales u; accumulate adds λ·u to the agent tokens of the
				// steps and leaves the rest (here the observation tokens 2, 6).
				adv := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9}
				require.NoError(t, impl.fn(handMargin.p, handMargin.steps, c.mode, 0.5, adv, true))
				for i := range adv {
					want := float32(i+1) + 0.5*c.u[i]
					assert.InDelta(t, want, adv[i], 1e-6, "token %d", i)
				}
			})
		}
	}
}

func TestMarginMinorityFixedPositiveMinority(t *testing.T) {
	// The hand trajectory with critiques flipped: s+ = 3 < s− = 4, so the
	// positive tokens get +1 and the negative ones −3/4.
	st := handMargin.steps
	st.Critique = []int8{-1, 1, -1}
	out := make([]float32, 9)
	require.NoError(t, MarginCorrectionRef(handMargin.p, st, MarginMinorityFixed, 1, out, false))
	assert.InDeltaSlice(t, []float32{-0.75, -0.75, 0, 1, 1, 1, 0, -0.75, -0.75}, out, 1e-7)
}

func TestMarginOneSidedIsZero(t *testing.T) {
	p := Packed{Offsets: []int32{0, 4, 8, 12}, Mask: []uint8{1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1}}
	steps := Steps{
		Offsets: []int32{0, 2, 4, 6},
		Start:   []int32{0, 2, 4, 6, 8, 10},
		End:     []int32{2, 4, 6, 8, 10, 12},
		// Trajectory 0: only +1 and 0. Trajectory 1: only −1.
		// Trajectory 2: a +1 step and a −1 step, but the −1 step [8, 10) holds
		// only observation tokens, so it is not a step of the policy: one-sided.
		Critique: []int8{1, 0, -1, -1, -1, 1},
	}
	for _, impl := range marginImpls {
		for _, mode := range allModes {
			out := filled(12, 5)
			require.NoError(t, impl.fn(p, steps, mode, 1, out, false))
			assert.Equal(t, make([]float32, 12), out, "%s/%v", impl.name, mode)
			acc := filled(12, 5)
			require.NoError(t, impl.fn(p, steps, mode, 1, acc, true))
			assert.Equal(t, filled(12, 5), acc, "%s/%v accumulate", impl.name, mode)
		}
	}
}

// TestMarginSumsToZero checks on random batches that every trajectory's λ·u
// sums to 0 over its steps (step, copied: read at each step's agent tokens)
// and over its tokens (step_spread, minority_fixed, abs_sum), and is 0 on
// observation tokens.
func TestMarginSumsToZero(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	active := 0
	for range 40 {
		p, st := randomBatch(r, 1+r.IntN(12), 80)
		for _, mode := range allModes {
			out := make([]float32, p.NumTokens())
			require.NoError(t, MarginCorrection(p, st, mode, 1, out, false))
			for b := range p.NumTrajectories() {
				lo, hi := p.Span(b)
				tokSum, stepSum, absSum := 0.0, 0.0, 0.0
				for k := lo; k < hi; k++ {
					if p.Mask[k] == 0 {
						assert.Zero(t, out[k])
					}
					tokSum += float64(out[k])
					absSum += math.Abs(float64(out[k]))
				}
				for i := st.Offsets[b]; i < st.Offsets[b+1]; i++ {
					for k := st.Start[i]; k < st.End[i]; k++ {
						if p.Mask[k] == 1 { // every agent token of a step holds the step's u
							stepSum += float64(out[k])
							break
						}
					}
				}
				if absSum > 0 && mode == MarginStep {
					active++
				}
				if mode == MarginStep {
					assert.InDelta(t, 0, stepSum, 1e-6, "step sum, trajectory %d", b)
				} else {
					assert.InDelta(t, 0, tokSum, 1e-5, "%v token sum, trajectory %d", mode, b)
				}
				if mode == MarginAbsSum && absSum > 0 {
					assert.InDelta(t, 1, absSum, 1e-5)
				}
			}
		}
	}
	require.Greater(t, active, 20, "the random batches must hold two-sided trajectories")
}

// paperMargin is L̂ of spec §2 on given token log-probs ℓ: the mean over P of
// a step's log-prob minus the mean over N, a step's log-prob being the sum of
// its agent tokens' ℓ (perToken: their mean instead). It is linear in ℓ.
func paperMargin(p Packed, st Steps, logp []float64, perToken bool) float64 {
	total := 0.0
	for b := range p.NumTrajectories() {
		var pos, neg []float64
		for i := st.Offsets[b]; i < st.Offsets[b+1]; i++ {
			s, n := 0.0, 0
			for k := st.Start[i]; k < st.End[i]; k++ {
				if p.Mask[k] == 1 {
					s += logp[k]
					n++
				}
			}
			if n == 0 {
				continue
			}
			if perToken {
				s /= float64(n)
			}
			switch st.Critique[i] {
			case 1:
				pos = append(pos, s)
			case -1:
				neg = append(neg, s)
			}
		}
		if len(pos) == 0 || len(neg) == 0 {
			continue
		}
		mean := func(x []float64) float64 {
			m := 0.0
			for _, v := range x {
				m += v
			}
			return m / float64(len(x))
		}
		total += mean(pos) - mean(neg)
	}
	return total
}

// TestMarginIsTheGradientOfThePaperMargin: u_k = ∂L̂/∂ℓ_k. The copied step
// form is the gradient of the paper's margin (step log-prob = sum of token
// log-probs); the spread form is the gradient of the same margin on mean
// token log-probs. L̂ is linear, so a unit finite difference is exact up to
// rounding.
func TestMarginIsTheGradientOfThePaperMargin(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	for range 10 {
		p, st := randomBatch(r, 1+r.IntN(6), 60)
		logp := make([]float64, p.NumTokens())
		for i := range logp {
			logp[i] = -3 * r.Float64()
		}
		for _, c := range []struct {
			mode     MarginMode
			perToken bool
		}{{MarginStep, false}, {MarginStepSpread, true}} {
			u := make([]float32, p.NumTokens())
			require.NoError(t, MarginCorrectionRef(p, st, c.mode, 1, u, false))
			base := paperMargin(p, st, logp, c.perToken)
			for k := range logp {
				logp[k]++
				grad := paperMargin(p, st, logp, c.perToken) - base
				logp[k]--
				assert.InDelta(t, grad, float64(u[k]), 1e-6, "%v token %d", c.mode, k)
			}
		}
	}
}

// TestMarginAccumulateAddsTheWrittenCorrection: on random batches, adding
// into an advantage buffer gives A + (the written λ·u) on the tokens where u
// is not 0, and leaves every other token bit for bit.
func TestMarginAccumulateAddsTheWrittenCorrection(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	sizes := []struct{ nb, maxLen int }{{0, 0}, {1, 0}, {2, 7}, {20, 50}, {64, 256}}
	for _, s := range sizes {
		p, st := randomBatch(r, s.nb, s.maxLen)
		adv := randomFloats(r, p.NumTokens())
		for _, impl := range marginImpls {
			for _, mode := range allModes {
				u := filled(p.NumTokens(), 8)
				require.NoError(t, impl.fn(p, st, mode, 0.3, u, false))
				acc := append([]float32(nil), adv...)
				require.NoError(t, impl.fn(p, st, mode, 0.3, acc, true))
				for k := range acc {
					if u[k] == 0 {
						assert.Equal(t, adv[k], acc[k], "%v token %d", mode, k)
					} else {
						assert.InDelta(t, adv[k]+u[k], acc[k], 1e-6, "%v token %d", mode, k)
					}
				}
			}
		}
	}
}

func TestMarginNaNInAdvantageStaysPut(t *testing.T) {
	// Adding λ·u to a NaN advantage keeps it NaN and spreads it nowhere.
	adv := []float32{1, 2, 3, float32(math.NaN()), 5, 6, 7, 8, 9}
	require.NoError(t, MarginCorrection(handMargin.p, handMargin.steps, MarginStep, 1, adv, true))
	for i, a := range adv {
		assert.Equal(t, i == 3, math.IsNaN(float64(a)), "token %d", i)
	}
}

func TestMarginErrors(t *testing.T) {
	h := handMargin
	cases := []struct {
		name    string
		edit    func(p *Packed, st *Steps, mode *MarginMode, lambda *float64, out *[]float32)
		errPart string
	}{
		{"bad packed", func(p *Packed, _ *Steps, _ *MarginMode, _ *float64, _ *[]float32) {
			p.Offsets = []int32{0, 8}
		}, "offsets[B] = 8"},
		{"step offsets too short", func(_ *Packed, st *Steps, _ *MarginMode, _ *float64, _ *[]float32) {
			st.Offsets = []int32{0}
		}, "offsets has 1 entries, want B+1 = 2"},
		{"step offsets not ending at S", func(_ *Packed, st *Steps, _ *MarginMode, _ *float64, _ *[]float32) {
			st.Offsets = []int32{0, 2}
		}, "want 0 to S = 3"},
		{"critique length", func(_ *Packed, st *Steps, _ *MarginMode, _ *float64, _ *[]float32) {
			st.Critique = []int8{1, -1}
		}, "start, end and critique have 3, 3 and 2"},
		{"overlapping steps", func(_ *Packed, st *Steps, _ *MarginMode, _ *float64, _ *[]float32) {
			st.Start = []int32{0, 1, 6}
		}, "step 1 of trajectory 0 spans tokens [1, 6)"},
		{"step past the trajectory", func(_ *Packed, st *Steps, _ *MarginMode, _ *float64, _ *[]float32) {
			st.End = []int32{2, 6, 10}
		}, "step 2 of trajectory 0 spans tokens [6, 10)"},
		{"reversed step", func(_ *Packed, st *Steps, _ *MarginMode, _ *float64, _ *[]float32) {
			st.End = []int32{2, 1, 9}
		}, "spans tokens [2, 1)"},
		{"critique 2", func(_ *Packed, st *Steps, _ *MarginMode, _ *float64, _ *[]float32) {
			st.Critique = []int8{1, 2, -1}
		}, "critique 2 of step 1"},
		{"unknown mode", func(_ *Packed, _ *Steps, m *MarginMode, _ *float64, _ *[]float32) { *m = 7 }, "unknown mode MarginMode(7)"},
		{"lambda Inf", func(_ *Packed, _ *Steps, _ *MarginMode, l *float64, _ *[]float32) { *l = math.Inf(1) }, "lambda = +Inf"},
		{"short out", func(_ *Packed, _ *Steps, _ *MarginMode, _ *float64, o *[]float32) { *o = (*o)[:8] }, "out has 8 entries, want T = 9"},
	}
	for _, impl := range marginImpls {
		for _, c := range cases {
			t.Run(impl.name+"/"+c.name, func(t *testing.T) {
				p := Packed{Offsets: append([]int32(nil), h.p.Offsets...), Mask: h.p.Mask}
				st := Steps{
					Offsets:  append([]int32(nil), h.steps.Offsets...),
					Start:    append([]int32(nil), h.steps.Start...),
					End:      append([]int32(nil), h.steps.End...),
					Critique: append([]int8(nil), h.steps.Critique...),
				}
				mode, lambda, out := MarginStep, 1.0, filled(9, 4)
				c.edit(&p, &st, &mode, &lambda, &out)
				err := impl.fn(p, st, mode, lambda, out, false)
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.errPart)
				assert.Equal(t, filled(len(out), 4), out, "no output written before the error")
			})
		}
	}
	// Steps whose middle offset overshoots S must not index past the arrays.
	st := h.steps
	two := Packed{Offsets: []int32{0, 4, 9}, Mask: h.p.Mask}
	st.Offsets = []int32{0, 5, 3}
	assert.ErrorContains(t, MarginCorrectionRef(two, st, MarginStep, 1, make([]float32, 9), false), "offsets[1] = 5")
}

func TestParseMarginMode(t *testing.T) {
	for _, m := range allModes {
		got, err := ParseMarginMode(m.String())
		require.NoError(t, err)
		assert.Equal(t, m, got)
	}
	got, err := ParseMarginMode("step_copied")
	require.NoError(t, err)
	assert.Equal(t, MarginStep, got)
	_, err = ParseMarginMode("fixed_pos")
	assert.ErrorContains(t, err, `unknown AREW margin mode "fixed_pos"`)

	// In JSON a mode is its name, read back as the mode; others are refused.
	for _, m := range allModes {
		data, err := json.Marshal(m)
		require.NoError(t, err)
		assert.Equal(t, `"`+m.String()+`"`, string(data))
		var back MarginMode
		require.NoError(t, json.Unmarshal(data, &back))
		assert.Equal(t, m, back)
	}
	var m MarginMode
	assert.ErrorContains(t, json.Unmarshal([]byte(`"fixed_pos"`), &m), "fixed_pos")
	_, err = json.Marshal(MarginMode(9))
	assert.Error(t, err)
}

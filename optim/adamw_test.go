package optim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/engine"
)

// twoParams is a store with a decayed 1×1 matrix "w" and an undecayed 1-D
// bias "b", both 1.
func twoParams(t *testing.T) (*engine.ParamStore, *engine.Param, *engine.Param) {
	t.Helper()
	s := engine.NewParamStore()
	w, err := s.Add("w", []int{1, 1}, engine.Constant(1))
	require.NoError(t, err)
	b, err := s.Add("b", []int{1}, engine.Constant(1))
	require.NoError(t, err)
	s.Init(1)
	return s, w, b
}

// Two steps by hand, lr 0.1, β = (0.9, 0.999), ε = 1e-8, λ_wd = 0.1,
// gradients 0.5 then −0.25 on both parameters:
//
//	step 1: m = 0.1·0.5 = 0.05, v = 0.001·0.25 = 2.5e-4
//	        m̂ = 0.05/0.1 = 0.5, v̂ = 2.5e-4/0.001 = 0.25, √v̂ = 0.5
//	        update = 0.1·0.5/(0.5 + 1e-8) = 0.099999998
//	        w = 1·(1 − 0.1·0.1) − 0.099999998 = 0.99 − 0.1 = 0.89
//	        b = 1 − 0.1 = 0.9                                       (1-D: no decay)
//	step 2: m = 0.9·0.05 + 0.1·(−0.25) = 0.02
//	        v = 0.999·2.5e-4 + 0.001·0.0625 = 3.1225e-4
//	        m̂ = 0.02/0.19 = 0.1052632, v̂ = 3.1225e-4/0.001999 = 0.1562031
//	        update = 0.1·0.1052632/√0.1562031 = 0.0266337
//	        w = 0.89·0.99 − 0.0266337 = 0.8811 − 0.0266337 = 0.8544663
//	        b = 0.9 − 0.0266337 = 0.8733663
//
// torch.optim.AdamW with the same settings (decay in one param group, not
// in the other) prints 0.8900000, 0.9000000, then 0.8544664, 0.8733664.
func TestAdamWHandComputedSteps(t *testing.T) {
	s, w, b := twoParams(t)
	o, err := NewAdamW(s.Params(), AdamWConfig{Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, WeightDecay: 0.1})
	require.NoError(t, err)
	for k, g := range []float32{0.5, -0.25} {
		w.Grad[0], b.Grad[0] = g, g
		require.NoError(t, o.Step(0.1))
		want := [][2]float64{{0.89, 0.9}, {0.8544663, 0.8733663}}[k]
		assert.InDelta(t, want[0], w.Data()[0], 2e-7, "w after step %d", k+1)
		assert.InDelta(t, want[1], b.Data()[0], 2e-7, "b after step %d", k+1)
	}
	assert.Equal(t, 2, o.Steps())
}

// A custom decay mask: decay nothing, so w moves exactly like b.
func TestAdamWDecayMask(t *testing.T) {
	s, w, b := twoParams(t)
	o, err := NewAdamW(s.Params(), AdamWConfig{Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, WeightDecay: 0.1,
		Decay: func(*engine.Param) bool { return false }})
	require.NoError(t, err)
	w.Grad[0], b.Grad[0] = 0.5, 0.5
	require.NoError(t, o.Step(0.1))
	assert.Equal(t, b.Data()[0], w.Data()[0])
	assert.True(t, DecayMatrices(w))
	assert.False(t, DecayMatrices(b))
}

// AdamW minimises f(x) = ½ Σ a_i (x_i − c_i)² (gradient a_i (x_i − c_i))
// from x = 0 with a cosine schedule; ill-conditioning (a from 0.1 to 10)
// is what Adam's per-coordinate scaling handles.
func TestAdamWMinimisesQuadratic(t *testing.T) {
	s := engine.NewParamStore()
	x, err := s.Add("x", []int{5}, engine.Constant(0))
	require.NoError(t, err)
	s.Init(1)
	a := []float64{0.1, 0.5, 1, 3, 10}
	c := []float64{1, -2, 0.5, 3, -1}
	f := func() float64 {
		v := 0.0
		for i := range a {
			d := float64(x.Data()[i]) - c[i]
			v += 0.5 * a[i] * d * d
		}
		return v
	}
	o, err := NewAdamW(s.Params(), AdamWConfig{Beta1: 0.9, Beta2: 0.99, Eps: 1e-8, WeightDecay: 0.1})
	require.NoError(t, err)
	sched := Schedule{Peak: 0.1, Floor: 1e-3, Warmup: 10, Total: 800}
	require.NoError(t, sched.Validate())
	start := f()
	for k := range 800 {
		for i := range a {
			x.Grad[i] = float32(a[i] * (float64(x.Data()[i]) - c[i]))
		}
		require.NoError(t, o.Step(sched.LR(k)))
	}
	assert.Less(t, f(), 1e-6*start)
	for i := range c {
		assert.InDelta(t, c[i], x.Data()[i], 1e-3)
	}
}

// Export after three steps, import into a fresh optimiser over a copy of
// the parameters: the fourth step is bitwise the same.
func TestAdamWStateRoundTrip(t *testing.T) {
	mk := func() (*engine.ParamStore, *AdamW) {
		s := engine.NewParamStore()
		_, err := s.Add("w", []int{3, 2}, engine.Normal(1))
		require.NoError(t, err)
		_, err = s.Add("b", []int{2}, engine.Normal(1))
		require.NoError(t, err)
		s.Init(9)
		o, err := NewAdamW(s.Params(), AdamWConfig{Beta1: 0.9, Beta2: 0.95, Eps: 1e-8, WeightDecay: 0.1})
		require.NoError(t, err)
		return s, o
	}
	rng := rand.New(rand.NewPCG(1, 1))
	fill := func(s *engine.ParamStore, seed uint64) {
		r := rand.New(rand.NewPCG(seed, 0))
		for _, p := range s.Params() {
			for i := range p.Grad {
				p.Grad[i] = float32(r.NormFloat64())
			}
		}
	}
	s1, o1 := mk()
	for k := range 3 {
		fill(s1, uint64(k))
		require.NoError(t, o1.Step(0.01))
	}
	st, err := o1.ExportState()
	require.NoError(t, err)
	assert.Equal(t, []float32{3}, st["adamw.step"])
	assert.Len(t, st, 5)

	s2, o2 := mk()
	for i, p := range s2.Params() {
		copy(p.Data(), s1.Params()[i].Data())
	}
	require.NoError(t, o2.ImportState(st))
	st["adamw.m/w"][0] = float32(rng.NormFloat64()) // the import copied
	fill(s1, 3)
	fill(s2, 3)
	require.NoError(t, o1.Step(0.01))
	require.NoError(t, o2.Step(0.01))
	for i := range s1.Params() {
		assert.Equal(t, s1.Params()[i].Data(), s2.Params()[i].Data())
	}
}

func TestAdamWRejectsBadInput(t *testing.T) {
	s, _, _ := twoParams(t)
	_, err := NewAdamW(s.Params(), AdamWConfig{Beta1: 1, Beta2: 0.9, Eps: 1e-8})
	assert.ErrorContains(t, err, "betas")
	_, err = NewAdamW(s.Params(), AdamWConfig{Beta1: 0.9, Beta2: 0.9})
	assert.ErrorContains(t, err, "eps")
	_, err = NewAdamW(append(s.Params(), s.Params()[0]), AdamWConfig{Beta1: 0.9, Beta2: 0.9, Eps: 1e-8})
	assert.ErrorContains(t, err, "twice")

	o, err := NewAdamW(s.Params(), AdamWConfig{Beta1: 0.9, Beta2: 0.9, Eps: 1e-8})
	require.NoError(t, err)
	assert.ErrorContains(t, o.Step(math.NaN()), "learning rate")
	st, err := o.ExportState()
	require.NoError(t, err)
	bad := map[string][]float32{}
	for k, v := range st {
		bad[k] = v
	}
	bad["adamw.v/w"] = []float32{1, 2}
	assert.ErrorContains(t, o.ImportState(bad), "adamw.v/w")
	delete(bad, "adamw.v/w")
	bad["adamw.v/x"] = []float32{1}
	assert.ErrorContains(t, o.ImportState(bad), "adamw.v/w")
	bad["adamw.v/w"] = []float32{1}
	assert.ErrorContains(t, o.ImportState(bad), "entries")
	st["adamw.step"] = []float32{1.5}
	assert.ErrorContains(t, o.ImportState(st), "adamw.step")
}

func gradStore(t *testing.T, grads ...[]float32) *engine.ParamStore {
	t.Helper()
	s := engine.NewParamStore()
	for i, g := range grads {
		p, err := s.Add(string(rune('a'+i)), []int{len(g)}, nil)
		require.NoError(t, err)
		copy(p.Grad, g)
	}
	return s
}

// Gradients (3, 4) and (12): global norm √(9 + 16 + 144) = 13. With
// maxNorm 6.5 every entry is scaled by 6.5/(13 + 1e-6) ≈ ½, so the
// direction is kept: (1.5, 2) and (6). Element-wise clamping at 6.5 would
// have left (3, 4) and cut 12 alone. With maxNorm 20 nothing changes.
func TestClipGradNormGlobal(t *testing.T) {
	s := gradStore(t, []float32{3, 4}, []float32{12})
	norm, err := ClipGradNorm(s.Params(), 6.5)
	require.NoError(t, err)
	assert.InDelta(t, 13, norm, 1e-12)
	c := 6.5 / (13 + 1e-6)
	assert.InDeltaSlice(t, []float32{float32(3 * c), float32(4 * c)}, s.Params()[0].Grad, 1e-6)
	assert.InDelta(t, 12*c, s.Params()[1].Grad[0], 1e-6)
	assert.InDelta(t, 6.5, GradNorm(s.Params()), 1e-5)

	s = gradStore(t, []float32{3, 4}, []float32{12})
	norm, err = ClipGradNorm(s.Params(), 20)
	require.NoError(t, err)
	assert.InDelta(t, 13, norm, 1e-12)
	assert.Equal(t, []float32{3, 4}, s.Params()[0].Grad)
}

// The norm accumulates in float64: (3e30, 4e30) has norm 5e30, though the
// squares (9e60) overflow float32.
func TestClipGradNormFloat64Accumulation(t *testing.T) {
	s := gradStore(t, []float32{3e30, 4e30})
	norm, err := ClipGradNorm(s.Params(), 1)
	require.NoError(t, err)
	assert.InEpsilon(t, 5e30, norm, 1e-6)
	assert.InDelta(t, 0.6, s.Params()[0].Grad[0], 1e-6)
	assert.InDelta(t, 0.8, s.Params()[0].Grad[1], 1e-6)
}

// NaN or Inf anywhere: the norm is returned with ErrNonFiniteGrad and the
// gradients are untouched (the caller skips the step, as verl does).
func TestClipGradNormNonFinite(t *testing.T) {
	for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))} {
		s := gradStore(t, []float32{3, 4}, []float32{bad})
		norm, err := ClipGradNorm(s.Params(), 1)
		assert.ErrorIs(t, err, ErrNonFiniteGrad)
		assert.True(t, math.IsNaN(norm) || math.IsInf(norm, 0), "norm %v", norm)
		assert.Equal(t, []float32{3, 4}, s.Params()[0].Grad)
	}
	_, err := ClipGradNorm(nil, 0)
	assert.ErrorContains(t, err, "maxNorm")
}

// Peak 1e-3, floor 1e-4, warm-up 4, cosine to step 14 (10 decay steps):
//
//	k = 0..3: 1e-3·(k+1)/4 = 2.5e-4, 5e-4, 7.5e-4, 1e-3
//	k = 4:    frac 0   → 1e-4 + ½·9e-4·(1 + 1)   = 1e-3
//	k = 9:    frac ½   → 1e-4 + ½·9e-4·(1 + 0)   = 5.5e-4
//	k = 11:   frac 0.7 → 1e-4 + ½·9e-4·(1 + cos 0.7π) = 1e-4 + 4.5e-4·0.4122147 = 2.854966e-4
//	k ≥ 14:   1e-4
func TestScheduleCosine(t *testing.T) {
	s := Schedule{Peak: 1e-3, Floor: 1e-4, Warmup: 4, Total: 14}
	assert.NoError(t, s.Validate())
	for k, want := range map[int]float64{0: 2.5e-4, 1: 5e-4, 2: 7.5e-4, 3: 1e-3, 4: 1e-3, 9: 5.5e-4, 11: 2.854966e-4, 14: 1e-4, 1000: 1e-4} {
		assert.InDelta(t, want, s.LR(k), 1e-10, "step %d", k)
	}
	for k := 4; k < 14; k++ {
		assert.Less(t, s.LR(k+1), s.LR(k), "decreasing at %d", k)
	}
	assert.InDelta(t, 1e-4+4.5e-4*(1+math.Cos(0.7*math.Pi)), s.LR(11), 1e-15)
}

func TestScheduleConstant(t *testing.T) {
	s := Schedule{Peak: 3e-4, Warmup: 2}
	assert.NoError(t, s.Validate())
	assert.InDelta(t, 1.5e-4, s.LR(0), 1e-15)
	for _, k := range []int{1, 2, 50, 1e6} {
		assert.Equal(t, 3e-4, s.LR(k))
	}
	assert.Equal(t, 3e-4, Schedule{Peak: 3e-4}.LR(0), "no warm-up")
}

func TestScheduleRejectsBadInput(t *testing.T) {
	for _, s := range []Schedule{
		{Peak: -1},
		{Peak: 1, Floor: 2},
		{Peak: 1, Warmup: -1},
		{Peak: 1, Warmup: 10, Total: 10},
		{Peak: math.NaN()},
	} {
		assert.Error(t, s.Validate(), "%+v", s)
	}
}

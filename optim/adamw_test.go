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

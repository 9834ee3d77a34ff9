package optim

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/engine"
)

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

package optim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Two sequences of two agent tokens (and a masked token between them),
// ε_low = ε_high = 0.2, seq-mean-token-mean over B' = 2:
//
//	seq 0: logp − old = (0.1, 0.3), κ = 0.2, s = e^{0.2} = 1.2214 > 1.2; A = 1:
//	       ℓ = max(−1.2214, −1.2) = −1.2 on both tokens (clipped, grad 0)
//	seq 1: logp − old = (−0.1, 0.1), κ = 0, s = 1; A = −0.5:
//	       ℓ = 0.5 on both (tie, inside), ∂ℓ_t/∂logp_t = −A·s = 0.5
//
//	Loss = ½ ((−1.2 − 1.2)/2 + (0.5 + 0.5)/2) = ½(−1.2 + 0.5) = −0.35
//	∂Loss/∂logp_t = ½ · ½ · 0.5 = 0.125 on seq 1's tokens, 0 on seq 0's
//	ClipFrac = 2/4;  ApproxKL = −(0.1 + 0.3 − 0.1 + 0.1)/4 = −0.1
func TestGSPOHandValues(t *testing.T) {
	b := Packed{Offsets: []int32{0, 3, 5}, Mask: []uint8{1, 0, 1, 1, 1}}
	old := []float64{-1, -1, -1, -1, -1}
	logp := []float64{-0.9, 5, -0.7, -1.1, -0.9}
	adv := []float64{1, 1, 1, -0.5, -0.5}
	r, err := GSPO(logp, old, adv, b, GSPOConfig{ClipLow: 0.2, ClipHigh: 0.2})
	require.NoError(t, err)
	assert.InDelta(t, -0.35, r.Loss, 1e-7)
	assert.InDeltaSlice(t, []float64{0, 0, 0, 0.125, 0.125}, r.DLogp, 1e-8)
	assert.InDelta(t, 0.5, r.ClipFrac, 1e-8)
	assert.InDelta(t, -0.1, r.ApproxKL, 1e-8)
	assert.Zero(t, r.ClipFracLower)

	seq, err := GSPOSequence(logp, old, []float64{1, -0.5}, b, GSPOConfig{ClipLow: 0.2, ClipHigh: 0.2})
	require.NoError(t, err)
	assert.InDelta(t, -0.35, seq.Loss, 1e-12)
	assert.InDelta(t, 0.5, seq.ClipFrac, 1e-8, "one of two sequences clipped")

	_, err = GSPO(logp, old, adv, b, GSPOConfig{ClipLow: -0.1})
	assert.ErrorContains(t, err, "ClipLow")
	_, err = GSPOSequence(logp, old, []float64{1}, b, GSPOConfig{})
	assert.ErrorContains(t, err, "one per sequence")
}

// The token form's gradient equals the sequence form's: verl's
// s_{i,t} = sg[s_i]·π_t/sg[π_t] routes ∂ℓ/∂s·s_i through each token's own
// log-prob, and seq-mean-token-mean divides by n_i — the 1/n_i of
// ∂κ_i/∂logp_t. Equal up to verl's n_i + 1e-8 (relative 1e-8). Checked on
// random sequences with GSPO's real clip range (3e-4/4e-4, so some
// sequences clip), a sequence whose κ exceeds the clamp at 10, and a
// sequence with no agent token.
func TestGSPOTokenFormEqualsSequenceForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	b := randomBatch(rng, 20, 10)
	n := b.NumTokens()
	logp := make([]float64, n)
	old := make([]float64, n)
	for i := range logp {
		logp[i] = -0.05 - 2*rng.Float64()
		old[i] = logp[i] + 1e-3*rng.NormFloat64()
	}
	for k := b.Offsets[0]; k < b.Offsets[1]; k++ {
		logp[k] = old[k] + 11 // κ = 11 > 10: the clamp cuts the gradient
	}
	seqAdv := normals(rng, b.NumTrajectories(), 0, 1)
	adv := make([]float64, n)
	for i := range b.NumTrajectories() {
		for k := b.Offsets[i]; k < b.Offsets[i+1]; k++ {
			adv[k] = seqAdv[i]
		}
	}
	cfg := GSPOConfig{ClipLow: 3e-4, ClipHigh: 4e-4, GlobalSeqs: 30}
	tok, err := GSPO(logp, old, adv, b, cfg)
	require.NoError(t, err)
	seq, err := GSPOSequence(logp, old, seqAdv, b, cfg)
	require.NoError(t, err)
	assert.Greater(t, seq.ClipFrac, 0.1, "some sequences must clip")
	assert.Less(t, seq.ClipFrac, 0.9, "and some must not")
	assert.InEpsilon(t, seq.Loss, tok.Loss, 1e-8)
	nonzero := 0
	for i := range n {
		assert.InDelta(t, seq.DLogp[i], tok.DLogp[i], 1e-8*math.Abs(seq.DLogp[i])+1e-15, "token %d", i)
		if seq.DLogp[i] != 0 {
			nonzero++
		}
	}
	assert.Greater(t, nonzero, n/4, "the comparison must not be between zeros")
	require.Positive(t, b.Offsets[1], "sequence 0 has tokens")
	for k := b.Offsets[0]; k < b.Offsets[1]; k++ {
		assert.Zero(t, tok.DLogp[k], "κ > 10 is clamped")
	}
}

// Finite differences of both forms. The sequence form is a genuine
// function of the log-probs. The token form's value is one too, but its
// stop-gradients make its gradient that of a surrogate; with one advantage
// per sequence the two coincide, so its gradient must match the finite
// differences of its own value as well.
func TestGSPOGradientFiniteDifference(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	b := randomBatch(rng, 10, 6)
	logp, old, _ := policyInputs(rng, b.NumTokens())
	seqAdv := normals(rng, b.NumTrajectories(), 0, 1)
	adv := make([]float64, b.NumTokens())
	for i := range b.NumTrajectories() {
		for k := b.Offsets[i]; k < b.Offsets[i+1]; k++ {
			adv[k] = seqAdv[i]
		}
	}
	cfg := GSPOConfig{ClipLow: 0.05, ClipHigh: 0.05}
	r, err := GSPOSequence(logp, old, seqAdv, b, cfg)
	require.NoError(t, err)
	assert.Greater(t, r.ClipFrac, 0.0)
	fdCheck(t, logp, r.DLogp, func(x []float64) float64 {
		r, err := GSPOSequence(x, old, seqAdv, b, cfg)
		require.NoError(t, err)
		return r.Loss
	}, 1e-6, 1e-6)

	tok, err := GSPO(logp, old, adv, b, cfg)
	require.NoError(t, err)
	fdCheck(t, logp, tok.DLogp, func(x []float64) float64 {
		r, err := GSPO(x, old, adv, b, cfg)
		require.NoError(t, err)
		return r.Loss
	}, 1e-6, 1e-6)
}

package optim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Sequence 0 has four steps over six tokens, sequence 1 two steps with only
// +1 critiques (one-sided: no margin). logp of sequence 0 =
// (−0.5, −0.5 | −2 | −1, −0.2 | −3), so
//
//	log π(A) = −1 (z=+1), log π(B) = −2 (z=−1), log π(C) = −1.2 (z=+1), log π(D) = −3 (z=0)
//	L̂_0 = (−1 − 1.2)/2 − (−2)/1 = −1.1 + 2 = 0.9,   L̂_1 = 0
//
// λ = 0.5 under seq-mean-token-sum (B' = 2, so ω = ½):
//
//	Loss = −λ·ω·L̂_0 = −0.5·0.5·0.9 = −0.225
//	∂Loss/∂logp_t = −λ ω u_s: A, C (u = +½) → −0.125;  B (u = −1) → +0.25;  D → 0
func TestMarginLossHandValues(t *testing.T) {
	b := Packed{Offsets: []int32{0, 6, 9}, Mask: []uint8{1, 1, 1, 1, 1, 1, 1, 0, 1}}
	logp := []float64{-0.5, -0.5, -2, -1, -0.2, -3, -0.1, -7, -0.3}
	steps := []Step{
		{Start: 5, End: 6, Z: 0}, // D; order does not matter
		{Start: 0, End: 2, Z: 1}, // A
		{Start: 2, End: 3, Z: -1},
		{Start: 3, End: 5, Z: 1},
		{Start: 6, End: 7, Z: 1},
		{Start: 7, End: 9, Z: 1}, // token 7 is not an agent token
	}
	r, err := MarginLoss(logp, b, steps, MarginConfig{Lambda: 0.5, Agg: Agg{Mode: SeqMeanTokenSum}})
	require.NoError(t, err)
	assert.InDelta(t, -0.225, r.Loss, 1e-12)
	assert.InDeltaSlice(t, []float64{-0.125, -0.125, 0.25, -0.125, -0.125, 0, 0, 0, 0}, r.DLogp, 1e-12)
	assert.InDelta(t, 0.9, r.MeanMargin, 1e-12)
	assert.Equal(t, 1, r.Active)
}

func TestMarginLossRejectsBadSteps(t *testing.T) {
	b := Packed{Offsets: []int32{0, 3, 6}, Mask: make([]uint8, 6)}
	logp := make([]float64, 6)
	for _, c := range []struct {
		steps []Step
		msg   string
	}{
		{[]Step{{Start: 2, End: 4, Z: 1}}, "crosses"},
		{[]Step{{Start: 0, End: 2, Z: 1}, {Start: 1, End: 3, Z: -1}}, "overlap"},
		{[]Step{{Start: 1, End: 1, Z: 1}}, "empty"},
		{[]Step{{Start: 4, End: 7, Z: 1}}, "outside"},
		{[]Step{{Start: 0, End: 1, Z: 2}}, "critique"},
	} {
		_, err := MarginLoss(logp, b, c.steps, MarginConfig{Lambda: 1, Agg: Agg{Mode: TokenMean}})
		assert.ErrorContains(t, err, c.msg)
	}
}

// arewBatch is a random batch whose sequences are cut into steps of 1..4
// tokens with random critiques, and u built by hand from them: per
// sequence, +1/|P| on the tokens of +1 steps, −1/|N| on those of −1 steps,
// 0 elsewhere and 0 for one-sided sequences (spec §2, mode "step", copied
// to the step's tokens).
func arewBatch(rng *rand.Rand) (Packed, []Step, []float64) {
	b := randomBatch(rng, 16, 14)
	var steps []Step
	u := make([]float64, b.NumTokens())
	for i := range b.NumTrajectories() {
		var seqSteps []Step
		for t := b.Offsets[i]; t < b.Offsets[i+1]; {
			end := min(t+1+int32(rng.IntN(4)), b.Offsets[i+1])
			seqSteps = append(seqSteps, Step{Start: t, End: end, Z: int8(rng.IntN(3) - 1)})
			t = end
		}
		pos, neg := 0, 0
		for _, s := range seqSteps {
			if s.Z == 1 {
				pos++
			} else if s.Z == -1 {
				neg++
			}
		}
		for _, s := range seqSteps {
			if pos == 0 || neg == 0 || s.Z == 0 {
				continue
			}
			for t := s.Start; t < s.End; t++ {
				if s.Z == 1 {
					u[t] = 1 / float64(pos)
				} else {
					u[t] = -1 / float64(neg)
				}
			}
		}
		steps = append(steps, seqSteps...)
	}
	return b, steps, u
}

// The AREW equivalence (spec §2). At ratio 1 (logp = old), for every
// aggregation mode, with the clipped surrogate and dual clip on:
//
//	∇ PPO(Â = A + λu)  =  ∇ PPO(A) + ∇ MarginLoss(λ, same aggregation)
//
// exactly (to rounding). The condition on the aggregation: the margin of
// trajectory τ must carry the weight ω_τ that the policy loss's
// aggregation gives τ's tokens (MarginConfig.Agg = the PPO Agg).
func TestAREWMarginEqualsAdvantageCorrection(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	b, steps, u := arewBatch(rng)
	n := b.NumTokens()
	logp, _, adv := policyInputs(rng, n)
	old := append([]float64(nil), logp...) // ratio 1
	const lambda = 0.7
	advHat := make([]float64, n)
	for i := range adv {
		advHat[i] = adv[i] + lambda*u[i]
	}
	for _, agg := range allAggs() {
		t.Run(string(agg.Mode), func(t *testing.T) {
			cfg := PPOConfig{ClipLow: 0.2, ClipHigh: 0.28, DualClip: 3, Agg: agg}
			withHat, err := PPOClip(logp, old, advHat, b, cfg)
			require.NoError(t, err)
			plain, err := PPOClip(logp, old, adv, b, cfg)
			require.NoError(t, err)
			m, err := MarginLoss(logp, b, steps, MarginConfig{Lambda: lambda, Agg: agg})
			require.NoError(t, err)
			require.Positive(t, m.Active, "some trajectories must have both critiques")
			moved := 0
			for i := range n {
				assert.InDelta(t, withHat.DLogp[i], plain.DLogp[i]+m.DLogp[i], 1e-14, "token %d", i)
				if m.DLogp[i] != 0 {
					moved++
				}
			}
			assert.Greater(t, moved, n/5, "the margin must move many tokens")
		})
	}
}

// Why the aggregation must match: the paper writes the margin as
// E_τ[L̂] = (1/B') Σ_τ L̂_τ, i.e. seq-mean-token-sum. Added to a token-mean
// PPO loss it is too strong by T/B' (the mean agent length): the gradients
// differ, and rescaling by B'/T makes them equal.
func TestAREWMarginUnderMismatchedAggregation(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	b, steps, u := arewBatch(rng)
	n := b.NumTokens()
	logp, _, adv := policyInputs(rng, n)
	const lambda = 0.7
	advHat := make([]float64, n)
	for i := range adv {
		advHat[i] = adv[i] + lambda*u[i]
	}
	cfg := PPOConfig{ClipLow: 0.2, ClipHigh: 0.2, Agg: Agg{Mode: TokenMean}}
	withHat, err := PPOClip(logp, logp, advHat, b, cfg)
	require.NoError(t, err)
	plain, err := PPOClip(logp, logp, adv, b, cfg)
	require.NoError(t, err)
	paper, err := MarginLoss(logp, b, steps, MarginConfig{Lambda: lambda, Agg: Agg{Mode: SeqMeanTokenSum}})
	require.NoError(t, err)
	scale := float64(b.ActiveTrajectories()) / float64(b.AgentTokens())
	require.Less(t, scale, 0.5)
	differs := false
	for i := range n {
		want := withHat.DLogp[i] - plain.DLogp[i]
		assert.InDelta(t, want, scale*paper.DLogp[i], 1e-14)
		differs = differs || math.Abs(want-paper.DLogp[i]) > 1e-6
	}
	assert.True(t, differs, "unscaled, the paper's E_τ margin is not the token-mean correction")
}

// Away from ratio 1 the equivalence is first order only: inside the clip
// range the advantage form scales the correction by the ratio,
// ∇PPO(Â) − ∇PPO(A) = r_t ⊙ ∇MarginLoss, which is not ∇MarginLoss.
func TestAREWMarginOffPolicyIsScaledByRatio(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	b, steps, u := arewBatch(rng)
	n := b.NumTokens()
	logp := normals(rng, n, -1, 0.3)
	old := make([]float64, n)
	for i := range old {
		old[i] = logp[i] + 0.05*rng.NormFloat64()
	}
	adv := normals(rng, n, 0, 1)
	const lambda = 0.3
	advHat := make([]float64, n)
	for i := range adv {
		advHat[i] = adv[i] + lambda*u[i]
	}
	agg := Agg{Mode: TokenMean}
	cfg := PPOConfig{ClipLow: 0.9, ClipHigh: 10, Agg: agg} // nothing clips
	withHat, err := PPOClip(logp, old, advHat, b, cfg)
	require.NoError(t, err)
	plain, err := PPOClip(logp, old, adv, b, cfg)
	require.NoError(t, err)
	m, err := MarginLoss(logp, b, steps, MarginConfig{Lambda: lambda, Agg: agg})
	require.NoError(t, err)
	differs := false
	for i := range n {
		r := math.Exp(logp[i] - old[i])
		want := withHat.DLogp[i] - plain.DLogp[i]
		assert.InDelta(t, want, r*m.DLogp[i], 1e-14)
		differs = differs || math.Abs(want-m.DLogp[i]) > 1e-6
	}
	assert.True(t, differs)
}

// The margin loss is linear in the log-probs; finite differences confirm
// the gradient (and hence the signs: a +1 step's log-prob lowers the loss).
func TestMarginLossGradientFiniteDifference(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	b, steps, _ := arewBatch(rng)
	logp := normals(rng, b.NumTokens(), -1, 0.5)
	for _, agg := range allAggs() {
		cfg := MarginConfig{Lambda: 0.4, Agg: agg}
		r, err := MarginLoss(logp, b, steps, cfg)
		require.NoError(t, err)
		fdCheck(t, logp, r.DLogp, func(x []float64) float64 {
			r, err := MarginLoss(x, b, steps, cfg)
			require.NoError(t, err)
			return r.Loss
		}, 1e-5, 1e-8)
	}
}

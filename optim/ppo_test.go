package optim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Four agent tokens and one masked-out token holding NaN, ε_low = ε_high =
// 0.2, dual clip c = 3, token-mean over T = 4:
//
//	t0: r = 1.5, A = +1: ℓ1 = −1.5, ℓ2 = −1.2·1 = −1.2 → −1.2 (clipped, grad 0)
//	t1: r = 0.5, A = −1: ℓ1 = 0.5,  ℓ2 = 0.8          → 0.8 (clipped, grad 0); cap 3 not hit
//	t2: r = 4,   A = −1: ℓ1 = 4,    ℓ2 = 1.2          → 4, capped to −c·A = 3 (dual, grad 0)
//	t3: r = 1.1, A = 2:  ℓ1 = ℓ2 = −2.2 (tie, inside) → −2.2, ∂ℓ/∂logp = −A·r = −2.2
//
//	Loss = (−1.2 + 0.8 + 3 − 2.2)/4 = 0.4/4 = 0.1;  ∂Loss/∂logp_3 = −2.2/4 = −0.55
//	ClipFrac = 2/4 (t0, t1);  ClipFracLower = 1/4 (t2)
//	ApproxKL = −(ln 1.5 + ln 0.5 + ln 4 + ln 1.1)/4 = −ln(3.3)/4
//
// Without dual clip t2 keeps ℓ = 4 with ∂ℓ/∂logp = −A·r = 4:
//
//	Loss = (−1.2 + 0.8 + 4 − 2.2)/4 = 0.35;  ∂Loss/∂logp_2 = 4/4 = 1
func TestPPOClipHandValues(t *testing.T) {
	b := Packed{Offsets: []int32{0, 2, 5}, Mask: []uint8{1, 1, 1, 0, 1}}
	old := []float64{-1, -1, -1, -1, -1}
	logp := []float64{-1 + math.Log(1.5), -1 + math.Log(0.5), -1 + math.Log(4), math.NaN(), -1 + math.Log(1.1)}
	adv := []float64{1, -1, -1, math.NaN(), 2}

	dual, err := PPOClip(logp, old, adv, b, PPOConfig{ClipLow: 0.2, ClipHigh: 0.2, DualClip: 3, Agg: Agg{Mode: TokenMean}})
	require.NoError(t, err)
	assert.InDelta(t, 0.1, dual.Loss, 1e-12)
	assert.InDeltaSlice(t, []float64{0, 0, 0, 0, -0.55}, dual.DLogp, 1e-12)
	assert.InDelta(t, 0.5, dual.ClipFrac, 1e-8)
	assert.InDelta(t, 0.25, dual.ClipFracLower, 1e-8)
	assert.InDelta(t, -math.Log(3.3)/4, dual.ApproxKL, 1e-8)

	plain, err := PPOClip(logp, old, adv, b, PPOConfig{ClipLow: 0.2, ClipHigh: 0.2, Agg: Agg{Mode: TokenMean}})
	require.NoError(t, err)
	assert.InDelta(t, 0.35, plain.Loss, 1e-12)
	assert.InDeltaSlice(t, []float64{0, 0, 1, 0, -0.55}, plain.DLogp, 1e-12)
	assert.Zero(t, plain.ClipFracLower)
}

// Asymmetric clip (DAPO's clip-higher): with ε_low = 0.1, ε_high = 0.3 a
// ratio of 1.25 with A > 0 is inside the range and keeps its gradient
// (ℓ = −1.25, ∂ℓ/∂logp = −1.25), while 0.85 with A < 0 is clipped to 0.9
// (ℓ = max(0.85, 0.9) = 0.9, gradient 0). Token-mean over 2:
// Loss = (−1.25 + 0.9)/2 = −0.175.
func TestPPOClipAsymmetricRange(t *testing.T) {
	b := Packed{Offsets: []int32{0, 2}, Mask: []uint8{1, 1}}
	old := []float64{0, 0}
	logp := []float64{math.Log(1.25), math.Log(0.85)}
	r, err := PPOClip(logp, old, []float64{1, -1}, b, PPOConfig{ClipLow: 0.1, ClipHigh: 0.3, Agg: Agg{Mode: TokenMean}})
	require.NoError(t, err)
	assert.InDelta(t, -0.175, r.Loss, 1e-12)
	assert.InDeltaSlice(t, []float64{-1.25 / 2, 0}, r.DLogp, 1e-12)
	assert.InDelta(t, 0.5, r.ClipFrac, 1e-8)
}

// The log-ratio is clamped to ±20 before exp: at logp − old = 25 with A = −1
// (dual clip off) the loss is e^20 and no gradient flows; at 19 the ratio is
// live and the gradient is −A·r = e^19.
func TestPPOClipLogRatioClamp(t *testing.T) {
	b := Packed{Offsets: []int32{0, 1}, Mask: []uint8{1}}
	cfg := PPOConfig{ClipLow: 0.2, ClipHigh: 0.2, Agg: Agg{Mode: TokenMean}}
	r, err := PPOClip([]float64{25}, []float64{0}, []float64{-1}, b, cfg)
	require.NoError(t, err)
	assert.InDelta(t, math.Exp(20), r.Loss, 1e-3)
	assert.Zero(t, r.DLogp[0])
	assert.InDelta(t, -20, r.ApproxKL, 1e-6, "approx-KL sees the clamped log-ratio, as verl's")

	r, err = PPOClip([]float64{19}, []float64{0}, []float64{-1}, b, cfg)
	require.NoError(t, err)
	assert.InDelta(t, math.Exp(19), r.DLogp[0], 1e-3)
}

func TestPPOClipRejectsBadConfig(t *testing.T) {
	b := Packed{Offsets: []int32{0, 1}, Mask: []uint8{1}}
	x := []float64{0}
	for _, c := range []struct {
		cfg PPOConfig
		msg string
	}{
		{PPOConfig{ClipLow: 1, ClipHigh: 0.2, Agg: Agg{Mode: TokenMean}}, "ClipLow"},
		{PPOConfig{ClipLow: 0.2, ClipHigh: -0.2, Agg: Agg{Mode: TokenMean}}, "ClipHigh"},
		{PPOConfig{ClipLow: 0.2, ClipHigh: 0.2, DualClip: 1, Agg: Agg{Mode: TokenMean}}, "DualClip"},
		{PPOConfig{ClipLow: 0.2, ClipHigh: 0.2}, "not set"},
	} {
		_, err := PPOClip(x, x, x, b, c.cfg)
		assert.ErrorContains(t, err, c.msg)
	}
	_, err := PPOClip(x, []float64{0, 0}, x, b, PPOConfig{ClipLow: 0.2, ClipHigh: 0.2, Agg: Agg{Mode: TokenMean}})
	assert.ErrorContains(t, err, "oldLogp")
}

// Finite differences of the loss w.r.t. every log-prob, for every
// aggregation, with and without dual clip, on random inputs where about a
// third of the tokens are clipped.
func TestPPOClipGradientFiniteDifference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	b := randomBatch(rng, 24, 10)
	logp, old, adv := policyInputs(rng, b.NumTokens())
	for _, agg := range allAggs() {
		for _, c := range []float64{0, 3} {
			cfg := PPOConfig{ClipLow: 0.2, ClipHigh: 0.28, DualClip: c, Agg: agg}
			r, err := PPOClip(logp, old, adv, b, cfg)
			require.NoError(t, err)
			assert.Greater(t, r.ClipFrac, 0.1, "the inputs must exercise the clip")
			if c > 0 {
				assert.Greater(t, r.ClipFracLower, 0.0, "and the dual clip")
			}
			fdCheck(t, logp, r.DLogp, func(x []float64) float64 {
				r, err := PPOClip(x, old, adv, b, cfg)
				require.NoError(t, err)
				return r.Loss
			}, 1e-6, 1e-6)
		}
	}
}

// ε_v = 0.5, token-mean over 3 agent tokens:
//
//	t0: v = 1, old = 0.8, R = 2:   v̄ = clip(1, 0.3, 1.3) = 1; (v−R)² = (v̄−R)² = 1 (tie) → 1, ∂/∂v = 2(v−R) = −2
//	t1: v = 2, old = 1,   R = 0:   v̄ = 1.5; 4 vs 2.25 → 4 (unclipped),  ∂/∂v = 2·2 = 4
//	t2: v = 0, old = 1,   R = 0.2: v̄ = 0.5; 0.04 vs 0.09 → 0.09 (clipped), ∂/∂v = 0
//
//	Loss = ½ (1 + 4 + 0.09)/3 = 0.848333…;  ∂Loss/∂v = ½·(1/3)·(−2, 4, 0) = (−1/3, 2/3, 0)
//	ClipFrac = 1/3
func TestValueLossHandValues(t *testing.T) {
	b := Packed{Offsets: []int32{0, 4}, Mask: []uint8{1, 1, 0, 1}}
	v := []float64{1, 2, 7, 0}
	old := []float64{0.8, 1, 7, 1}
	ret := []float64{2, 0, math.Inf(1), 0.2}
	r, err := ValueLoss(v, old, ret, b, ValueConfig{ClipValue: 0.5, Agg: Agg{Mode: TokenMean}})
	require.NoError(t, err)
	assert.InDelta(t, 0.5*5.09/3, r.Loss, 1e-12)
	assert.InDeltaSlice(t, []float64{-1.0 / 3, 2.0 / 3, 0, 0}, r.DValue, 1e-12)
	assert.InDelta(t, 1.0/3, r.ClipFrac, 1e-8)

	// Clipping off (ε_v = +Inf): t2 is scored unclipped, 0.04 with ∂ = 2·(−0.2).
	r, err = ValueLoss(v, old, ret, b, ValueConfig{ClipValue: math.Inf(1), Agg: Agg{Mode: TokenMean}})
	require.NoError(t, err)
	assert.InDelta(t, 0.5*5.04/3, r.Loss, 1e-12)
	assert.InDelta(t, 0.5*(-0.4)/3, r.DValue[3], 1e-12)
	assert.Zero(t, r.ClipFrac)

	_, err = ValueLoss(v, old, ret, b, ValueConfig{ClipValue: -1, Agg: Agg{Mode: TokenMean}})
	assert.ErrorContains(t, err, "ClipValue")
	_, err = ValueLoss(v, old, ret[:2], b, ValueConfig{ClipValue: 1, Agg: Agg{Mode: TokenMean}})
	assert.ErrorContains(t, err, "returns")
}

func TestValueLossGradientFiniteDifference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	b := randomBatch(rng, 12, 8)
	n := b.NumTokens()
	old := normals(rng, n, 0, 1)
	ret := normals(rng, n, 0, 1)
	v := make([]float64, n)
	for i := range v {
		v[i] = old[i] + 0.4*rng.NormFloat64() // a fair share beyond ε_v = 0.2
	}
	for _, agg := range allAggs() {
		cfg := ValueConfig{ClipValue: 0.2, Agg: agg}
		r, err := ValueLoss(v, old, ret, b, cfg)
		require.NoError(t, err)
		assert.Greater(t, r.ClipFrac, 0.05)
		fdCheck(t, v, r.DValue, func(x []float64) float64 {
			r, err := ValueLoss(x, old, ret, b, cfg)
			require.NoError(t, err)
			return r.Loss
		}, 1e-6, 1e-6)
	}
}

// Three sequences: seq 0 = tokens 0..2 with mask T T F and losses 1, 2, (99);
// seq 1 = token 3, not an agent token (a fully masked sequence); seq 2 =
// tokens 4..6, all agent tokens, losses 3, 4, 5. Agent tokens T = 5, active
// sequences B' = 2, per-sequence sums 3 and 12, counts 2 and 3.
var handBatch = Packed{Offsets: []int32{0, 3, 4, 7}, Mask: []uint8{1, 1, 0, 0, 1, 1, 1}}
var handLoss = []float64{1, 2, 99, math.NaN(), 3, 4, 5}

func TestAggregateHandValues(t *testing.T) {
	cases := []struct {
		name string
		agg  Agg
		want float64
		w0   float64 // weight of token 0 (= ∂loss/∂ℓ_0)
	}{
		// (1+2+3+4+5)/5 = 15/5 = 3
		{"token-mean", Agg{Mode: TokenMean}, 3, 1.0 / 5},
		// global count 10 (the batch is a micro-batch of a larger one): 15/10
		{"token-mean global", Agg{Mode: TokenMean, GlobalTokens: 10}, 1.5, 1.0 / 10},
		// (3 + 12)/2 = 7.5
		{"seq-mean-token-sum", Agg{Mode: SeqMeanTokenSum}, 7.5, 1.0 / 2},
		// global 5 sequences: 15/5 = 3
		{"seq-mean-token-sum global", Agg{Mode: SeqMeanTokenSum, GlobalSeqs: 5}, 3, 1.0 / 5},
		// (3/2 + 12/3)/2 = (1.5 + 4)/2 = 2.75 (verl's n + 1e-8 moves it by ~1e-8)
		{"seq-mean-token-mean", Agg{Mode: SeqMeanTokenMean}, 2.75, 1.0 / 2 / 2},
		// Dr.GRPO with C = 4: 15/4 = 3.75
		{"seq-mean-token-sum-norm", Agg{Mode: SeqMeanTokenSumNorm, NormConst: 4}, 3.75, 1.0 / 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, w, err := Aggregate(handLoss, handBatch, c.agg)
			require.NoError(t, err)
			assert.InDelta(t, c.want, got, 1e-7)
			assert.InDelta(t, c.w0, w[0], 1e-8) // 1/(2+1e-8)/2 = 0.25 − 1.25e-9
			assert.Zero(t, w[2], "non-agent token has no weight")
			assert.Zero(t, w[3], "NaN in a masked-out token must not leak")
		})
	}
}

func TestAggregateRejectsBadInput(t *testing.T) {
	cases := []struct {
		name string
		b    Packed
		agg  Agg
		loss []float64
		msg  string
	}{
		{"no mode", handBatch, Agg{}, handLoss, "not set"},
		{"unknown mode", handBatch, Agg{Mode: "token-sum"}, handLoss, "unknown"},
		{"norm without constant", handBatch, Agg{Mode: SeqMeanTokenSumNorm}, handLoss, "NormConst"},
		{"negative global", handBatch, Agg{Mode: TokenMean, GlobalTokens: -1}, handLoss, "global"},
		{"short loss", handBatch, Agg{Mode: TokenMean}, handLoss[:3], "one per token"},
		{"offsets not from 0", Packed{Offsets: []int32{1, 2}, Mask: []uint8{1, 1}}, Agg{Mode: TokenMean}, []float64{1, 2}, "offsets[0]"},
		{"offsets decrease", Packed{Offsets: []int32{0, 2, 1, 2}, Mask: []uint8{1, 1}}, Agg{Mode: TokenMean}, []float64{1, 2}, "negative length"},
		{"offsets short of mask", Packed{Offsets: []int32{0, 1}, Mask: []uint8{1, 1}}, Agg{Mode: TokenMean}, []float64{1, 2}, "offsets[B]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := Aggregate(c.loss, c.b, c.agg)
			assert.ErrorContains(t, err, c.msg)
		})
	}
}

// No agent token at all: loss 0, gradient 0 (verl would give 0/0 = NaN).
func TestAggregateEmptyIsZero(t *testing.T) {
	b := Packed{Offsets: []int32{0, 2}, Mask: []uint8{0, 0}}
	for _, a := range allAggs() {
		got, w, err := Aggregate([]float64{1, 2}, b, a)
		require.NoError(t, err)
		assert.Zero(t, got, a.Mode)
		assert.Equal(t, []float64{0, 0}, w, a.Mode)
	}
}

// The micro-batch claim: with the global counts passed in, the losses and
// gradients of four micro-batches of 16 sequences, summed (the gradients
// placed side by side), equal those of the batch of 64 — for every mode.
// With each micro-batch's own counts (verl's default) token-mean does not:
// that failure is the reason the global count exists.
func TestTokenMeanMicroBatchesEqualFullBatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 64))
	b := randomBatch(rng, 64, 12)
	logp, old, adv := policyInputs(rng, b.NumTokens())
	global := Agg{GlobalTokens: float64(b.AgentTokens()), GlobalSeqs: float64(b.ActiveTrajectories()), NormConst: 12}

	for _, mode := range []AggMode{TokenMean, SeqMeanTokenSum, SeqMeanTokenMean, SeqMeanTokenSumNorm} {
		t.Run(string(mode), func(t *testing.T) {
			agg := global
			agg.Mode = mode
			cfg := PPOConfig{ClipLow: 0.2, ClipHigh: 0.28, DualClip: 3, Agg: agg}
			full, err := PPOClip(logp, old, adv, b, cfg)
			require.NoError(t, err)

			sum, grad := 0.0, make([]float64, 0, len(logp))
			for k := range 4 {
				mb, t0, t1 := sub(b, 16*k, 16*(k+1))
				r, err := PPOClip(logp[t0:t1], old[t0:t1], adv[t0:t1], mb, cfg)
				require.NoError(t, err)
				sum += r.Loss
				grad = append(grad, r.DLogp...)
			}
			assert.InDelta(t, full.Loss, sum, 1e-12)
			// Each token's gradient is w_t·∂ℓ_t/∂logp_t with the same w_t
			// either way: bitwise identical, not merely close.
			assert.Equal(t, full.DLogp, grad)
		})
	}

	// The counter-case: local counts change the gradient of a micro-batch.
	mb, t0, t1 := sub(b, 0, 16)
	local, err := PPOClip(logp[t0:t1], old[t0:t1], adv[t0:t1], mb, PPOConfig{ClipLow: 0.2, ClipHigh: 0.2, Agg: Agg{Mode: TokenMean}})
	require.NoError(t, err)
	glob, err := PPOClip(logp[t0:t1], old[t0:t1], adv[t0:t1], mb, PPOConfig{ClipLow: 0.2, ClipHigh: 0.2, Agg: Agg{Mode: TokenMean, GlobalTokens: float64(b.AgentTokens())}})
	require.NoError(t, err)
	ratio := float64(b.AgentTokens()) / float64(mb.AgentTokens())
	for i := range local.DLogp {
		assert.InDelta(t, local.DLogp[i], ratio*glob.DLogp[i], 1e-12)
	}
	assert.Greater(t, ratio, 3.0, "a micro-batch's own count is about a quarter of the global one")
}

package optim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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

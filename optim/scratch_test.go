package optim

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An objective that reuses its work slices (as the graph nodes do) returns,
// call after call with other batches, masks and lengths, exactly what a
// fresh call returns: nothing of an earlier call leaks into a later one.
func TestScratchReuseMatchesFreshCalls(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	cases := []struct{ seqs, maxLen int }{{6, 9}, {6, 9}, {3, 4}, {12, 20}, {1, 1}, {12, 20}}
	var ps, vs scratch
	for i, c := range cases {
		b := randomBatch(rng, c.seqs, c.maxLen)
		n := len(b.Mask)
		logp, old, adv := policyInputs(rng, n)
		for _, agg := range allAggs() {
			cfg := PPOConfig{ClipLow: 0.2, ClipHigh: 0.28, DualClip: 3, Agg: agg}
			want, err := PPOClip(logp, old, adv, b, cfg)
			require.NoError(t, err)
			got, err := ppoClip(&ps, logp, old, adv, b, cfg)
			require.NoError(t, err)
			assert.Equal(t, want, got, "case %d, %v: ppo", i, agg.Mode)

			vcfg := ValueConfig{ClipValue: 0.5, Agg: agg}
			values, oldValues, returns := normals(rng, n, 0, 1), normals(rng, n, 0, 1), normals(rng, n, 0, 1)
			wantV, err := ValueLoss(values, oldValues, returns, b, vcfg)
			require.NoError(t, err)
			gotV, err := valueLoss(&vs, values, oldValues, returns, b, vcfg)
			require.NoError(t, err)
			assert.Equal(t, wantV, gotV, "case %d, %v: value", i, agg.Mode)
		}
	}
}

// Aggregator.Aggregate32, call after call on one Aggregator, is exactly
// Aggregate of the widened values.
func TestAggregatorMatchesAggregate(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	var g Aggregator
	for i, c := range []struct{ seqs, maxLen int }{{6, 9}, {2, 3}, {12, 20}, {1, 1}} {
		b := randomBatch(rng, c.seqs, c.maxLen)
		x := make([]float32, len(b.Mask))
		for j := range x {
			x[j] = float32(rng.NormFloat64())
		}
		for _, agg := range allAggs() {
			want, _, err := Aggregate(F64(x), b, agg)
			require.NoError(t, err)
			got, err := g.Aggregate32(x, b, agg)
			require.NoError(t, err)
			assert.Equal(t, want, got, "case %d, %v", i, agg.Mode)
		}
	}
	b := randomBatch(rng, 2, 5)
	_, err := g.Aggregate32(make([]float32, len(b.Mask)+1), b, allAggs()[0])
	assert.Error(t, err, "a length that is not the batch's")
}

// F64 widens a float32 slice for the float64 objectives.
func F64(x []float32) []float64 { return f64Into(nil, x) }

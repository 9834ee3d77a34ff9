package optim

import (
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// verlOracle is testdata/verl_oracle.json, written by
// testdata/verl_oracle.py: verl's own functions (commit in VerlCommit) run
// under torch autograd in float64 on a padded batch of B rows of L tokens.
type verlOracle struct {
	VerlCommit string    `json:"verl_commit"`
	Bn         int       `json:"B"`
	Ln         int       `json:"L"`
	Mask       []float64 `json:"mask"`
	Logp       []float64 `json:"logp"`
	Old        []float64 `json:"old"`
	OldGSPO    []float64 `json:"old_gspo"`
	Adv        []float64 `json:"adv"`
	SeqAdv     []float64 `json:"seqadv"`
	V          []float64 `json:"v"`
	VOld       []float64 `json:"vold"`
	Ret        []float64 `json:"ret"`
	Ref        []float64 `json:"ref"`
	Cases      []struct {
		Name    string             `json:"name"`
		Loss    float64            `json:"loss"`
		Grad    []float64          `json:"grad"`
		Metrics map[string]float64 `json:"metrics"`
	} `json:"cases"`
}

// The outside oracle: the same inputs give verl's numbers — losses,
// metrics and autograd gradients — for PPO (clip-higher ε 0.2/0.28, dual
// clip c = 3) and the value loss (ε_v 0.2) under all four aggregations,
// every KL estimator under all four, and GSPO. The padded rows become
// packed sequences of L tokens (padding is just masked tokens), and
// seq-mean-token-sum-norm gets verl's default constant, L.
func TestMatchesVerlOracle(t *testing.T) {
	raw, err := os.ReadFile("testdata/verl_oracle.json")
	require.NoError(t, err)
	var o verlOracle
	require.NoError(t, json.Unmarshal(raw, &o))
	require.Len(t, o.Mask, o.Bn*o.Ln)
	b := Packed{Offsets: make([]int32, o.Bn+1), Mask: make([]uint8, len(o.Mask))}
	for i := range o.Bn + 1 {
		b.Offsets[i] = int32(i * o.Ln)
	}
	for i, m := range o.Mask {
		if m > 0.5 {
			b.Mask[i] = 1
		}
	}
	close := func(t *testing.T, want, got float64, what string) {
		t.Helper()
		assert.InDelta(t, want, got, 1e-12*math.Max(1, math.Abs(want)), what)
	}
	closeSlice := func(t *testing.T, want, got []float64) {
		t.Helper()
		require.Len(t, got, len(want))
		for i := range want {
			close(t, want[i], got[i], "gradient")
		}
	}
	require.Len(t, o.Cases, 4*6+1)
	for _, c := range o.Cases {
		t.Run(c.Name, func(t *testing.T) {
			parts := strings.Split(c.Name, "/")
			agg := Agg{Mode: AggMode(parts[len(parts)-1]), NormConst: float64(o.Ln)}
			switch parts[0] {
			case "ppo":
				r, err := PPOClip(o.Logp, o.Old, o.Adv, b, PPOConfig{ClipLow: 0.2, ClipHigh: 0.28, DualClip: 3, Agg: agg})
				require.NoError(t, err)
				close(t, c.Loss, r.Loss, "loss")
				closeSlice(t, c.Grad, r.DLogp)
				close(t, c.Metrics["actor/pg_clipfrac"], r.ClipFrac, "clipfrac")
				close(t, c.Metrics["actor/pg_clipfrac_lower"], r.ClipFracLower, "clipfrac lower")
				close(t, c.Metrics["actor/ppo_kl"], r.ApproxKL, "ppo_kl")
				assert.Positive(t, r.ClipFrac)
				assert.Positive(t, r.ClipFracLower)
			case "value":
				r, err := ValueLoss(o.V, o.VOld, o.Ret, b, ValueConfig{ClipValue: 0.2, Agg: agg})
				require.NoError(t, err)
				close(t, c.Loss, r.Loss, "loss")
				closeSlice(t, c.Grad, r.DValue)
				close(t, c.Metrics["clipfrac"], r.ClipFrac, "clipfrac")
			case "kl":
				r, err := KLPenalty(o.Logp, o.Ref, b, KLConfig{Estimator: KLEstimator(parts[1]), Coef: 1, Agg: agg})
				require.NoError(t, err)
				close(t, c.Loss, r.Loss, "loss")
				closeSlice(t, c.Grad, r.DLogp)
			case "gspo":
				r, err := GSPO(o.Logp, o.OldGSPO, o.SeqAdv, b, GSPOConfig{ClipLow: 0.01, ClipHigh: 0.012})
				require.NoError(t, err)
				close(t, c.Loss, r.Loss, "loss")
				closeSlice(t, c.Grad, r.DLogp)
				close(t, c.Metrics["actor/pg_clipfrac"], r.ClipFrac, "clipfrac")
				close(t, c.Metrics["actor/ppo_kl"], r.ApproxKL, "ppo_kl")
				assert.Positive(t, r.ClipFrac)
			default:
				t.Fatalf("unknown case %s", c.Name)
			}
		})
	}
}

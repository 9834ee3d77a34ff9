package optim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"arew/engine"
)

// graphCase builds one objective's node over x and returns the slice
// function's loss and gradient at the same x.
type graphCase struct {
	name  string
	x     []float64
	build func(x *G.Node) (*G.Node, error)
	slice func(x []float64) (float64, []float64, error)
}

func graphCases(t *testing.T) []graphCase {
	rng := rand.New(rand.NewPCG(31, 32))
	b, steps, _ := arewBatch(rng)
	n := b.NumTokens()
	logp, old, adv := policyInputs(rng, n)
	agg := Agg{Mode: TokenMean}
	ppo := PPOConfig{ClipLow: 0.2, ClipHigh: 0.28, DualClip: 3, Agg: agg}
	gspo := GSPOConfig{ClipLow: 0.05, ClipHigh: 0.05}
	vcfg := ValueConfig{ClipValue: 0.2, Agg: Agg{Mode: SeqMeanTokenMean}}
	kcfg := KLConfig{Estimator: KLK3, Coef: 0.1, Agg: agg}
	mcfg := MarginConfig{Lambda: 0.5, Agg: agg}
	v, vOld, ret := normals(rng, n, 0, 1), normals(rng, n, 0, 1), normals(rng, n, 0, 1)
	ent := normals(rng, n, 2, 0.3)
	ref := normals(rng, n, -1.5, 0.5)
	return []graphCase{
		{"ppo", logp,
			func(x *G.Node) (*G.Node, error) { n, _, err := PPOClipNode(x, old, adv, b, ppo); return n, err },
			func(x []float64) (float64, []float64, error) {
				r, err := PPOClip(x, old, adv, b, ppo)
				return r.Loss, r.DLogp, err
			}},
		{"gspo", logp,
			func(x *G.Node) (*G.Node, error) { n, _, err := GSPONode(x, old, adv, b, gspo); return n, err },
			func(x []float64) (float64, []float64, error) {
				r, err := GSPO(x, old, adv, b, gspo)
				return r.Loss, r.DLogp, err
			}},
		{"value", v,
			func(x *G.Node) (*G.Node, error) { n, _, err := ValueLossNode(x, vOld, ret, b, vcfg); return n, err },
			func(x []float64) (float64, []float64, error) {
				r, err := ValueLoss(x, vOld, ret, b, vcfg)
				return r.Loss, r.DValue, err
			}},
		{"entropy", ent,
			func(x *G.Node) (*G.Node, error) { n, _, err := EntropyBonusNode(x, b, 0.01, agg); return n, err },
			func(x []float64) (float64, []float64, error) {
				r, err := EntropyBonus(x, b, 0.01, agg)
				return r.Loss, r.DEnt, err
			}},
		{"kl", logp,
			func(x *G.Node) (*G.Node, error) { n, _, err := KLPenaltyNode(x, ref, b, kcfg); return n, err },
			func(x []float64) (float64, []float64, error) {
				r, err := KLPenalty(x, ref, b, kcfg)
				return r.Loss, r.DLogp, err
			}},
		{"margin", logp,
			func(x *G.Node) (*G.Node, error) { n, _, err := MarginLossNode(x, b, steps, mcfg); return n, err },
			func(x []float64) (float64, []float64, error) {
				r, err := MarginLoss(x, b, steps, mcfg)
				return r.Loss, r.DLogp, err
			}},
	}
}

// runGraph evaluates loss = build(x) and ∂loss/∂x on a tape machine.
func runGraph(t *testing.T, x *tensor.Dense, build func(*G.Node) (*G.Node, error)) (float64, []float64) {
	t.Helper()
	g := G.NewGraph()
	xn := G.NodeFromAny(g, x, G.WithName("x"))
	loss, err := build(xn)
	require.NoError(t, err)
	_, err = G.Grad(loss, xn)
	require.NoError(t, err)
	m := G.NewTapeMachine(g)
	defer m.Close()
	require.NoError(t, m.RunAll())
	gv, err := xn.Grad()
	require.NoError(t, err)
	lv, err := scalar64(loss.Value())
	require.NoError(t, err)
	gd, err := flat64(nil, gv)
	require.NoError(t, err)
	return lv, gd
}

// The graph nodes compute what the slice functions compute: in float64
// bitwise, in float32 to float32 rounding of the input and output.
func TestGraphNodesAgreeWithSliceFunctions(t *testing.T) {
	for _, c := range graphCases(t) {
		t.Run(c.name, func(t *testing.T) {
			want, wantGrad, err := c.slice(c.x)
			require.NoError(t, err)

			x64 := tensor.New(tensor.WithShape(len(c.x)), tensor.WithBacking(append([]float64(nil), c.x...)))
			l, g := runGraph(t, x64, c.build)
			assert.Equal(t, want, l)
			assert.Equal(t, wantGrad, g)

			// float32: the slice function sees the rounded inputs.
			x32 := make([]float32, len(c.x))
			for i, v := range c.x {
				x32[i] = float32(v)
			}
			want32, wantGrad32, err := c.slice(F64(x32))
			require.NoError(t, err)
			l, g = runGraph(t, tensor.New(tensor.WithShape(len(c.x)), tensor.WithBacking(x32)), c.build)
			assert.InDelta(t, want32, l, 1e-6*math.Max(1, math.Abs(want32)))
			for i := range g {
				assert.InDelta(t, wantGrad32[i], g[i], 1e-6*math.Max(1e-3, math.Abs(wantGrad32[i])))
			}
		})
	}
}

// Two objectives over the same log-prob node stay two nodes (their hashes
// differ) and their gradients add: PPO(A) + MarginLoss on the graph equals
// PPO(Â) from the slice function at ratio 1 — the AREW equivalence once
// more, through gorgonia's autodiff. Scaling the sum by 2 on the graph
// checks that the backward multiplies by the upstream gradient.
func TestGraphObjectivesAdd(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	b, steps, u := arewBatch(rng)
	n := b.NumTokens()
	logp, _, adv := policyInputs(rng, n)
	const lambda = 0.5
	cfg := PPOConfig{ClipLow: 0.2, ClipHigh: 0.2, DualClip: 3, Agg: Agg{Mode: TokenMean}}
	_, got := runGraph(t, tensor.New(tensor.WithShape(n), tensor.WithBacking(append([]float64(nil), logp...))), func(x *G.Node) (*G.Node, error) {
		p, _, err := PPOClipNode(x, logp, adv, b, cfg)
		if err != nil {
			return nil, err
		}
		m, _, err := MarginLossNode(x, b, steps, MarginConfig{Lambda: lambda, Agg: cfg.Agg})
		if err != nil {
			return nil, err
		}
		sum, err := G.Add(p, m)
		if err != nil {
			return nil, err
		}
		two := G.NewScalar(x.Graph(), tensor.Float64, G.WithValue(2.0), G.WithName("two"))
		return G.Mul(sum, two)
	})
	advHat := make([]float64, n)
	for i := range adv {
		advHat[i] = adv[i] + lambda*u[i]
	}
	want, err := PPOClip(logp, logp, advHat, b, cfg)
	require.NoError(t, err)
	for i := range got {
		assert.InDelta(t, 2*want.DLogp[i], got[i], 1e-14)
	}
}

// engine.GradCheck differentiates each float32 node numerically through the
// graph. Inputs are kept away from the clip kinks (ε = 1e-2 must not cross
// one): log-ratios from a fixed safe set, values well inside or outside ε_v.
func TestGraphNodesFiniteDifference(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 36))
	b, steps, _ := arewBatch(rng)
	n := b.NumTokens()
	safe := []float64{-0.6, -0.1, 0.05, 0.1, 0.4, 1.5} // kinks at ln 0.8, ln 1.2, ln 3
	logp := make([]float64, n)
	old := make([]float64, n)
	v := make([]float64, n)
	vOld := make([]float64, n)
	for i := range logp {
		logp[i] = -0.5 - rng.Float64()
		old[i] = logp[i] - safe[rng.IntN(len(safe))]
		vOld[i] = rng.NormFloat64()
		v[i] = vOld[i] + []float64{-0.5, -0.05, 0.05, 0.5}[rng.IntN(4)] // ε_v = 0.2
	}
	adv := normals(rng, n, 0, 1)
	ret := normals(rng, n, 0, 1)
	ref := normals(rng, n, -1, 0.2)
	agg := Agg{Mode: SeqMeanTokenMean}
	// GSPO: one advantage per sequence (see TestGSPOGradientFiniteDifference).
	seqAdv := make([]float64, n)
	for i := range b.NumTrajectories() {
		a := rng.NormFloat64()
		for k := b.Offsets[i]; k < b.Offsets[i+1]; k++ {
			seqAdv[k] = a
		}
	}
	cases := []struct {
		name  string
		x     []float64
		build func(x *G.Node) (*G.Node, error)
	}{
		{"ppo", logp, func(x *G.Node) (*G.Node, error) {
			l, _, err := PPOClipNode(x, old, adv, b, PPOConfig{ClipLow: 0.2, ClipHigh: 0.2, DualClip: 3, Agg: agg})
			return l, err
		}},
		{"gspo", logp, func(x *G.Node) (*G.Node, error) {
			l, _, err := GSPONode(x, old, seqAdv, b, GSPOConfig{ClipLow: 0.2, ClipHigh: 0.2})
			return l, err
		}},
		{"value", v, func(x *G.Node) (*G.Node, error) {
			l, _, err := ValueLossNode(x, vOld, ret, b, ValueConfig{ClipValue: 0.2, Agg: agg})
			return l, err
		}},
		{"kl", logp, func(x *G.Node) (*G.Node, error) {
			l, _, err := KLPenaltyNode(x, ref, b, KLConfig{Estimator: KLK3, Coef: 1, Agg: agg})
			return l, err
		}},
		{"entropy", ref, func(x *G.Node) (*G.Node, error) {
			l, _, err := EntropyBonusNode(x, b, 1, agg)
			return l, err
		}},
		{"margin", logp, func(x *G.Node) (*G.Node, error) {
			l, _, err := MarginLossNode(x, b, steps, MarginConfig{Lambda: 1, Agg: agg})
			return l, err
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x32 := make([]float32, len(c.x))
			for i, v := range c.x {
				x32[i] = float32(v)
			}
			in := tensor.New(tensor.WithShape(len(x32)), tensor.WithBacking(x32))
			res, err := engine.GradCheck([]*tensor.Dense{in}, func(_ *G.ExprGraph, xs G.Nodes) (*G.Node, error) {
				return c.build(xs[0])
			}, 1e-2, 1)
			require.NoError(t, err)
			assert.Less(t, res.MaxRelErr, 1e-3, res.Where)
		})
	}
}

// Builders check sizes and options before touching the graph; the metrics
// pointer is filled by the forward run.
func TestGraphBuildersValidateAndReportMetrics(t *testing.T) {
	b := Packed{Offsets: []int32{0, 2}, Mask: []uint8{1, 1}}
	g := G.NewGraph()
	x := G.NewVector(g, tensor.Float64, G.WithShape(3), G.WithName("x"))
	_, _, err := PPOClipNode(x, []float64{0, 0}, []float64{1, 1}, b, PPOConfig{ClipLow: 0.2, ClipHigh: 0.2, Agg: Agg{Mode: TokenMean}})
	assert.ErrorContains(t, err, "has 3 entries")

	x = G.NewVector(g, tensor.Float64, G.WithShape(2), G.WithName("y"))
	_, _, err = PPOClipNode(x, []float64{0, 0}, []float64{1, 1}, b, PPOConfig{ClipLow: 2, Agg: Agg{Mode: TokenMean}})
	assert.ErrorContains(t, err, "ClipLow")
	xi := G.NewVector(g, tensor.Int, G.WithShape(2), G.WithName("z"))
	_, err = SliceLoss(xi, "int", 2, func([]float64) (float64, []float64, error) { return 0, nil, nil })
	assert.ErrorContains(t, err, "dtype")

	// r = (1.5, 1), A = (1, 1): token 0 clips → ClipFrac ½.
	in := tensor.New(tensor.WithShape(2), tensor.WithBacking([]float64{math.Log(1.5), 0}))
	g = G.NewGraph()
	xn := G.NodeFromAny(g, in, G.WithName("logp"))
	loss, last, err := PPOClipNode(xn, []float64{0, 0}, []float64{1, 1}, b, PPOConfig{ClipLow: 0.2, ClipHigh: 0.2, Agg: Agg{Mode: TokenMean}})
	require.NoError(t, err)
	m := G.NewTapeMachine(g)
	defer m.Close()
	require.NoError(t, m.RunAll())
	assert.InDelta(t, 0.5, last.ClipFrac, 1e-8)
	lv, err := scalar64(loss.Value())
	require.NoError(t, err)
	assert.InDelta(t, (-1.2-1)/2, lv, 1e-12)
}

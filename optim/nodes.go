package optim

import (
	G "gorgonia.org/gorgonia"
)

// The graph builders: each objective as a scalar node over a log-prob node
// (or a value / entropy node), built with SliceLoss. The other inputs are
// bound by reference: the graph reads the slices as they are at each run,
// so a trainer may refill them in place (same lengths) and rerun the same
// graph. Each builder also returns a
// pointer to the objective's result, which every forward run of the graph
// overwrites: read the metrics from it after running the machine. The
// PPO and value objectives reuse their work slices between runs
// (scratch.go): a result's gradient slice is valid until the next run.

// PPOClipNode is PPOClip over the log-prob node logp (N entries).
func PPOClipNode(logp *G.Node, oldLogp, adv []float64, b Packed, cfg PPOConfig) (*G.Node, *PolicyResult, error) {
	last, s := new(PolicyResult), new(scratch)
	n, err := SliceLoss(logp, "ppo_clip", len(oldLogp), func(x []float64) (float64, []float64, error) {
		r, err := ppoClip(s, x, oldLogp, adv, b, cfg)
		*last = r
		return r.Loss, r.DLogp, err
	})
	return n, last, err
}

// GSPONode is GSPO (token form) over the log-prob node logp.
func GSPONode(logp *G.Node, oldLogp, adv []float64, b Packed, cfg GSPOConfig) (*G.Node, *PolicyResult, error) {
	last := new(PolicyResult)
	n, err := SliceLoss(logp, "gspo", len(oldLogp), func(x []float64) (float64, []float64, error) {
		r, err := GSPO(x, oldLogp, adv, b, cfg)
		*last = r
		return r.Loss, r.DLogp, err
	})
	return n, last, err
}

// ValueLossNode is ValueLoss over the critic's value node (N entries).
func ValueLossNode(values *G.Node, oldValues, returns []float64, b Packed, cfg ValueConfig) (*G.Node, *ValueResult, error) {
	last, s := new(ValueResult), new(scratch)
	n, err := SliceLoss(values, "value_loss", len(oldValues), func(x []float64) (float64, []float64, error) {
		r, err := valueLoss(s, x, oldValues, returns, b, cfg)
		*last = r
		return r.Loss, r.DValue, err
	})
	return n, last, err
}

// EntropyBonusNode is EntropyBonus over the per-token entropy node.
func EntropyBonusNode(ent *G.Node, b Packed, coef float64, agg Agg) (*G.Node, *EntropyResult, error) {
	last := new(EntropyResult)
	n, err := SliceLoss(ent, "entropy_bonus", len(b.Mask), func(x []float64) (float64, []float64, error) {
		r, err := EntropyBonus(x, b, coef, agg)
		*last = r
		return r.Loss, r.DEnt, err
	})
	return n, last, err
}

// KLPenaltyNode is KLPenalty over the log-prob node logp.
func KLPenaltyNode(logp *G.Node, refLogp []float64, b Packed, cfg KLConfig) (*G.Node, *KLResult, error) {
	last := new(KLResult)
	n, err := SliceLoss(logp, "kl_penalty", len(refLogp), func(x []float64) (float64, []float64, error) {
		r, err := KLPenalty(x, refLogp, b, cfg)
		*last = r
		return r.Loss, r.DLogp, err
	})
	return n, last, err
}

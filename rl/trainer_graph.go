package rl

import (
	"errors"
	"fmt"
	"math"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"arew/engine"
	"arew/model"
	"arew/optim"
)

// actorGraph is the policy's training graph for one minibatch shape
// (B rows of T) and its loss, built and compiled once and rerun for every
// minibatch of every update:
//
//	L = surrogate + [−EntropyCoef·H] + [KLCoef·KL] + [ValueCoef·value loss]
//
// with the bracketed terms present only when switched on (the value loss
// only with a shared critic). The loss nodes read rows' slices at each run;
// the result pointers are refilled by each forward.
type actorGraph struct {
	g   *model.Graph
	agg optim.Agg
	pol *optim.PolicyResult
	kl  *optim.KLResult    // nil without KL
	val *optim.ValueResult // nil without a shared critic
	ent optim.Aggregator   // the entropy metric's work slices
}

// newActorGraph builds the graph; algo picks the surrogate: the clipped
// token ratio for PPO and GRPO, the clipped sequence ratio for GSPO;
// heads > 0 makes it a head-rows graph of that capacity (head_rows.go).
func newActorGraph(m *model.Model, r *rows, pc PolicyConfig, algo Algo, shared *CriticConfig, heads int) (*actorGraph, error) {
	g, err := trainingGraph(m, r, heads)
	if err != nil {
		return nil, err
	}
	a := &actorGraph{g: g, agg: pc.agg(r.aggLen())}
	fail := func(err error) (*actorGraph, error) {
		g.Close()
		return nil, fmt.Errorf("actor graph: %w", err)
	}
	var loss *G.Node
	switch algo {
	case AlgoPPO, AlgoGRPO:
		loss, a.pol, err = optim.PPOClipNode(g.Logp, r.oldLogp, r.adv, r.packed,
			optim.PPOConfig{ClipLow: pc.ClipLow, ClipHigh: pc.ClipHigh, DualClip: pc.DualClip, Agg: a.agg})
	case AlgoGSPO:
		loss, a.pol, err = optim.GSPONode(g.Logp, r.oldLogp, r.adv, r.packed,
			optim.GSPOConfig{ClipLow: pc.ClipLow, ClipHigh: pc.ClipHigh})
	default:
		err = fmt.Errorf("no surrogate for algo %q", algo)
	}
	if err != nil {
		return fail(err)
	}
	add := func(term *G.Node, err error) error {
		if err != nil {
			return err
		}
		loss, err = G.Add(loss, term)
		return err
	}
	if pc.EntropyCoef > 0 {
		n, _, err := optim.EntropyBonusNode(g.Entropy, r.packed, pc.EntropyCoef, a.agg)
		if err := add(n, err); err != nil {
			return fail(err)
		}
	}
	if pc.KLCoef > 0 {
		n, res, err := optim.KLPenaltyNode(g.Logp, r.refLogp, r.packed,
			optim.KLConfig{Estimator: pc.KLEstimator, Coef: pc.KLCoef, Agg: a.agg})
		a.kl = res
		if err := add(n, err); err != nil {
			return fail(err)
		}
	}
	if shared != nil {
		if g.Values == nil {
			return fail(fmt.Errorf("a shared critic needs a policy with a value head (model.Config.WithValueHead)"))
		}
		n, res, err := optim.ValueLossNode(g.Values, r.oldValues, r.returns, r.packed, valueConfig(*shared))
		a.val = res
		if err == nil {
			coef := G.NewScalar(g.G, tensor.Float32, G.WithValue(float32(shared.ValueCoef)), G.WithName("value_coef"))
			n, err = G.Mul(n, coef)
		}
		if err := add(n, err); err != nil {
			return fail(err)
		}
	}
	if err := g.Compile(loss); err != nil {
		return fail(err)
	}
	return a, nil
}

// valueConfig is the clipped value loss, token-mean over agent predictions
// (verl's critic default).
func valueConfig(c CriticConfig) optim.ValueConfig {
	return optim.ValueConfig{ClipValue: c.ValueClip, Agg: optim.Agg{Mode: optim.TokenMean}}
}

// criticGraph is a separate critic's training graph with its clipped value
// loss on the same rows.
type criticGraph struct {
	g   *model.Graph
	val *optim.ValueResult
}

func newCriticGraph(m *model.Model, r *rows, c CriticConfig, heads int) (*criticGraph, error) {
	var g *model.Graph
	var err error
	if heads > 0 {
		g, err = m.NewHeadRowsGraph(r.B, r.T, heads, false)
	} else {
		g, err = m.NewGraph(r.B, r.T)
	}
	if err != nil {
		return nil, err
	}
	if g.Values == nil {
		g.Close()
		return nil, fmt.Errorf("critic graph: the critic has no value head")
	}
	loss, res, err := optim.ValueLossNode(g.Values, r.oldValues, r.returns, r.packed, valueConfig(c))
	if err == nil {
		err = g.Compile(loss)
	}
	if err != nil {
		g.Close()
		return nil, fmt.Errorf("critic graph: %w", err)
	}
	return &criticGraph{g: g, val: res}, nil
}

// policyGraph is a policy's graph for the rows' shape: masked (the rows'
// logit bias under its log-probs and entropy) when the task is, a prefix
// graph for the answer rows of shared prompts (prefix.go).
func policyGraph(m *model.Model, r *rows) (*model.Graph, error) {
	if r.prefix != nil {
		return m.NewPrefixGraph(*r.prefix, r.bias != nil)
	}
	if r.bias != nil {
		return m.NewMaskedGraph(r.B, r.T)
	}
	return m.NewGraph(r.B, r.T)
}

// trainingGraph is policyGraph, or with heads > 0 a head-rows graph of
// that capacity for the rows' shape (masked when the task is).
func trainingGraph(m *model.Model, r *rows, heads int) (*model.Graph, error) {
	if heads > 0 {
		return m.NewHeadRowsGraph(r.B, r.T, heads, r.bias != nil)
	}
	return policyGraph(m, r)
}

// setInputs loads rows into a graph (a value-only model takes no targets;
// a masked graph also takes the rows' logit bias; a prefix graph the
// trunk's tokens, positions and prompt lengths; a head-rows graph the
// rows' agent predictions as its listed rows, as fitHeadRows listed them
// after the rows were loaded).
func setInputs(g *model.Graph, r *rows) error {
	if g.HeadCapacity() > 0 {
		if err := g.SetHeadRows(r.agent); err != nil {
			return err
		}
	}
	if g.LogitBias != nil {
		if err := g.SetLogitBias(r.bias); err != nil {
			return err
		}
	}
	targets := r.targets
	if g.Targets == nil {
		targets = nil
	}
	if r.prefix != nil {
		return g.SetPrefixInputs(r.trunk, r.positions, r.lens, targets)
	}
	return g.SetInputs(r.tokens, targets)
}

// step turns the gradients of the graph's last Run into one optimiser step:
// zero, accumulate (the graph's, then extra's when not nil), clip the
// global norm, step. It returns the norm before
// clipping and whether the step was skipped (a non-finite loss or norm:
// the gradients are zeroed and the weights left alone, as verl does; the
// trainer's skipGuard ends training after too many in a row).
func step(g *model.Graph, m *model.Model, opt *optim.AdamW, maxNorm, lr float64, extra ExtraLoss) (float64, bool, error) {
	m.Params.ZeroGrad()
	if loss, err := g.Loss(); err == nil && (math.IsNaN(loss) || math.IsInf(loss, 0)) {
		return math.NaN(), true, nil
	}
	if err := g.AccumulateGrads(); err != nil {
		return 0, false, err
	}
	if extra != nil {
		if _, err := extra.Accumulate(); err != nil {
			return 0, false, err
		}
	}
	norm, err := optim.ClipGradNorm(m.Params.Params(), maxNorm)
	if errors.Is(err, optim.ErrNonFiniteGrad) {
		m.Params.ZeroGrad()
		return norm, true, nil
	}
	if err != nil {
		return 0, false, err
	}
	if err := opt.Step(lr); err != nil {
		return norm, false, err
	}
	// A finite gradient times a huge rate can still overflow a weight; the
	// step cannot be undone, so training ends here (the caller's last
	// checkpoint is the last good one).
	if err := engine.CheckParamsFinite(m.Params); err != nil {
		return norm, false, fmt.Errorf("%w: the step at lr %g made a weight non-finite: %v", ErrDiverged, lr, err)
	}
	return norm, false, nil
}

// stepNet is one optimiser step of one network of the trainer, actor or
// critic: step (with extra's gradient added, nil: none), then the
// divergence guard, and a skipped step counted in m. It returns the
// gradient norm (NaN for a skipped step).
func (t *trainer) stepNet(g *model.Graph, net *model.Model, opt *optim.AdamW, maxNorm, lr float64, extra ExtraLoss, m *Metrics) (float64, error) {
	norm, skipped, err := step(g, net, opt, maxNorm, lr, extra)
	if err == nil {
		err = t.guard.record(skipped)
	}
	if err != nil {
		return 0, err
	}
	if skipped {
		m.SkippedSteps++
	}
	return norm, nil
}

// ErrDiverged is returned when too many optimiser steps in a row had a
// non-finite loss or gradient norm: each such step is skipped (the
// weights are left alone and Metrics.SkippedSteps counts it), and a run
// of them means training has diverged, so the trainer stops rather than
// go on skipping silently.
var ErrDiverged = errors.New("training diverged")

// DefaultMaxSkipped is how many skipped steps in a row end training when a
// config leaves MaxSkipped at 0.
const DefaultMaxSkipped = 8

// skipGuard counts consecutive skipped optimiser steps (of every network a
// trainer steps) across updates and epochs.
type skipGuard struct {
	max, inARow int
}

func newSkipGuard(max int) skipGuard {
	if max <= 0 {
		max = DefaultMaxSkipped
	}
	return skipGuard{max: max}
}

// record notes one optimiser step; it returns an error wrapping
// ErrDiverged when the last max steps were all skipped.
func (g *skipGuard) record(skipped bool) error {
	if !skipped {
		g.inARow = 0
		return nil
	}
	g.inARow++
	if g.inARow >= g.max {
		return fmt.Errorf("%w: %d optimiser steps in a row had a non-finite loss or gradient (lower the learning rate)", ErrDiverged, g.inARow)
	}
	return nil
}

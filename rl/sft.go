package rl

import (
	"context"
	"fmt"
	"math"
	"time"

	G "gorgonia.org/gorgonia"

	"arew/model"
	"arew/optim"
	"arew/tasks"
)

// SFTConfig is supervised fine-tuning on demonstrations (warm starts,
// imitation learning): Epochs passes over the training trajectories in
// shuffled minibatches, each minibatch one AdamW step on the masked
// next-token loss. The learning-rate schedule is indexed by optimiser step.
type SFTConfig struct {
	Seed      uint64      `json:"seed"`
	Epochs    int         `json:"epochs"`
	MiniBatch int         `json:"mini_batch"`
	MaxLen    int         `json:"max_len"` // longest trajectory; 0: the policy's context
	Optim     OptimConfig `json:"optim"`
	// MaxSkipped steps in a row with a non-finite loss or gradient end
	// training with ErrDiverged; 0 means DefaultMaxSkipped.
	MaxSkipped int `json:"max_skipped"`
	// Bucket > 0 runs each minibatch in a graph only as long as its
	// longest example, rounded up to a multiple of Bucket predictions (at
	// most MaxLen−1): one graph per such length, built when a minibatch
	// first needs it and kept. 0 (the default) runs every minibatch in the
	// one (MiniBatch, MaxLen−1) graph.
	Bucket int `json:"bucket,omitempty"`
	// HeadRows trains in head-rows graphs (model.NewHeadRowsGraph): the
	// last block and the LM head at the minibatch's agent predictions only,
	// the rows the loss reads; a graph is rebuilt with more room when a
	// minibatch has more agent predictions than it holds (rl's head-rows
	// capacity rule, head_rows.go).
	//
	// Either option gives the full-length plain graph's loss and gradient
	// to float32 rounding, not bitwise: padding is masked and attention is
	// causal, so the cut rows change no value the loss reads, but the
	// products sum in another order (TestSFTCutGraphsAreTheFullGraph).
	HeadRows bool `json:"head_rows,omitempty"`
}

// DefaultSFTConfig: 3 epochs of minibatches of 16 at lr 1e-3 (AdamW as
// DefaultOptim).
func DefaultSFTConfig() SFTConfig {
	return SFTConfig{Seed: 1, Epochs: 3, MiniBatch: 16, Optim: DefaultOptim(1e-3)}
}

// Validate reports the first bad field.
func (c SFTConfig) Validate() error {
	if c.Epochs < 1 || c.MiniBatch < 1 || c.MaxLen < 0 || c.MaxSkipped < 0 || c.Bucket < 0 {
		return fmt.Errorf("sft: need epochs ≥ 1, mini_batch ≥ 1, max_len ≥ 0, max_skipped ≥ 0, bucket ≥ 0, got %d, %d, %d, %d, %d",
			c.Epochs, c.MiniBatch, c.MaxLen, c.MaxSkipped, c.Bucket)
	}
	if err := c.Optim.Validate(); err != nil {
		return fmt.Errorf("sft optimiser: %w", err)
	}
	return nil
}

// SFTMetrics describe one epoch.
type SFTMetrics struct {
	Epoch        int     `json:"epoch"`
	Steps        int     `json:"steps"`      // optimiser steps so far
	TrainLoss    float64 `json:"train_loss"` // mean over the epoch's minibatches
	TestLoss     float64 `json:"test_loss"`  // −mean log π of the held-out agent tokens
	TestAccuracy float64 `json:"test_accuracy"`
	GradNorm     float64 `json:"grad_norm"`     // mean, before clipping
	SkippedSteps int     `json:"skipped_steps"` // non-finite loss or gradient: no step
	LR           float64 `json:"lr"`            // at the epoch's last step
	Seconds      float64 `json:"seconds"`
	TokensPerSec float64 `json:"tok_s"`
}

// SFT trains a policy to imitate demonstrations. The loss of a minibatch is
//
//	L = −(1/N) Σ_{agent predictions t} log π(y_t | y_<t)
//
// over its N agent tokens (token-mean): only the agent's turns (EOT
// included) are learnt, the prompt and observations are context.
type SFT struct {
	cfg    SFTConfig
	policy *model.Model
	fullT  int // MaxLen−1
	// graphs holds the compiled graphs by shape, each built when first
	// needed: training's (the plain full-length one, or with Bucket or
	// HeadRows the cut ones) and Evaluate's (the plain full-length one).
	graphs map[sftShape]*sftGraph
	opt    *optim.AdamW
	guard  skipGuard
	epoch  int
	steps  int
}

// sftShape is a graph's length and whether it is a head-rows graph.
type sftShape struct {
	T        int
	headRows bool
}

// sftGraph is a compiled loss graph of one shape and the rows it reads
// (g nil until built).
type sftGraph struct {
	rows *rows
	g    *model.Graph
}

// NewSFT builds the optimiser, and the (MiniBatch, MaxLen−1) graph that
// every minibatch trains in unless Bucket or HeadRows cut it.
func NewSFT(policy *model.Model, cfg SFTConfig) (*SFT, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	maxLen := cfg.MaxLen
	if maxLen == 0 {
		maxLen = policy.Config.Context
	}
	if maxLen < 2 || maxLen > policy.Config.Context {
		return nil, fmt.Errorf("sft: max_len %d must lie in [2, context %d]", maxLen, policy.Config.Context)
	}
	if !policy.Config.LMHead {
		return nil, fmt.Errorf("sft: the policy has no LM head")
	}
	opt, err := optim.NewAdamW(policy.Params.Params(), cfg.Optim.adamw())
	if err != nil {
		return nil, fmt.Errorf("sft: %w", err)
	}
	s := &SFT{cfg: cfg, policy: policy, fullT: maxLen - 1, graphs: map[sftShape]*sftGraph{},
		opt: opt, guard: newSkipGuard(cfg.MaxSkipped)}
	if cfg.Bucket == 0 && !cfg.HeadRows {
		if _, err := s.graph(sftShape{T: s.fullT}, 0); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// graph is the graph of shape sh, built if missing; a head-rows graph is
// built with room for heads agent predictions (rl's capacity rule,
// head_rows.go), and rebuilt when it has less.
func (s *SFT) graph(sh sftShape, heads int) (*sftGraph, error) {
	sg := s.rowsOf(sh)
	if sg.g != nil && heads > sg.g.HeadCapacity() {
		sg.g.Close()
		sg.g = nil
	}
	if sg.g != nil {
		return sg, nil
	}
	capacity := 0
	if sh.headRows {
		capacity = headCapacity(heads, sg.rows.B*sg.rows.T)
	}
	g, err := trainingGraph(s.policy, sg.rows, capacity)
	if err != nil {
		return nil, fmt.Errorf("sft: %w", err)
	}
	loss, err := nllNode(g.Logp, sg.rows)
	if err == nil {
		err = g.Compile(loss)
	}
	if err != nil {
		g.Close()
		return nil, fmt.Errorf("sft: %w", err)
	}
	sg.g = g
	return sg, nil
}

// rowsOf is the entry of shape sh, its rows made if missing (its graph
// may not be built yet).
func (s *SFT) rowsOf(sh sftShape) *sftGraph {
	sg := s.graphs[sh]
	if sg == nil {
		sg = &sftGraph{rows: newRows(s.cfg.MiniBatch, sh.T)}
		s.graphs[sh] = sg
	}
	return sg
}

// load puts trajectories idx of b into the graph they train in, its
// inputs set: the plain full-length graph, or with Bucket one as long as
// their longest trajectory's predictions rounded up to a multiple of
// Bucket, and with HeadRows a head-rows graph with room for their agent
// predictions.
func (s *SFT) load(b *Batch, idx []int) (*sftGraph, error) {
	sh := sftShape{T: s.fullT, headRows: s.cfg.HeadRows}
	if s.cfg.Bucket > 0 {
		n := 1
		for _, i := range idx {
			n = max(n, int(b.Packed.Offsets[i+1]-b.Packed.Offsets[i]))
		}
		sh.T = min((n+s.cfg.Bucket-1)/s.cfg.Bucket*s.cfg.Bucket, s.fullT)
	}
	r := s.rowsOf(sh).rows
	if err := r.load(b, idx, nil); err != nil {
		return nil, fmt.Errorf("sft: %w", err)
	}
	heads := 0
	if sh.headRows {
		heads = len(r.agentRows())
	}
	sg, err := s.graph(sh, heads)
	if err != nil {
		return nil, err
	}
	if sh.headRows {
		if err := sg.g.SetHeadRows(r.agent); err != nil {
			return nil, fmt.Errorf("sft: %w", err)
		}
	}
	if err := sg.g.SetInputs(r.tokens, r.targets); err != nil {
		return nil, fmt.Errorf("sft: %w", err)
	}
	return sg, nil
}

// nllNode is the token-mean negative log-likelihood of the rows' agent
// predictions: loss −Σ w_t logp_t, gradient −w_t, w = 1/N on the mask.
func nllNode(logp *G.Node, r *rows) (*G.Node, error) {
	agg := optim.Agg{Mode: optim.TokenMean}
	return optim.SliceLoss(logp, "sft_nll", len(r.packed.Mask), func(x []float64) (float64, []float64, error) {
		w, err := agg.Weights(r.packed)
		if err != nil {
			return 0, nil, err
		}
		loss, grad := 0.0, make([]float64, len(x))
		for t, wt := range w {
			if wt != 0 {
				loss -= wt * x[t]
				grad[t] = -wt
			}
		}
		return loss, grad, nil
	})
}

// Close releases the graphs.
func (s *SFT) Close() {
	for _, sg := range s.graphs {
		if sg.g != nil {
			sg.g.Close()
		}
	}
}

// Train runs the configured epochs, evaluating on test after each (test
// may be empty: then its metrics are NaN), and calls each (if not nil)
// with every epoch's metrics: an error it returns (an interruption, a log
// that cannot be written) ends training with that error.
func (s *SFT) Train(train, test []*Trajectory, each func(SFTMetrics) error) ([]SFTMetrics, error) {
	var out []SFTMetrics
	for range s.cfg.Epochs {
		m, err := s.Epoch(train)
		if err != nil {
			return out, err
		}
		m.TestLoss, m.TestAccuracy = nan, nan
		if len(test) > 0 {
			if m.TestLoss, m.TestAccuracy, err = s.Evaluate(test); err != nil {
				return out, err
			}
		}
		out = append(out, m)
		if each != nil {
			if err := each(m); err != nil {
				return out, err
			}
		}
	}
	return out, nil
}

// Epoch makes one pass over train in an order drawn from (seed, epoch).
func (s *SFT) Epoch(train []*Trajectory) (SFTMetrics, error) {
	return s.epochUntil(context.Background(), train)
}

// epochUntil is Epoch that stops before its next minibatch once ctx ends,
// returning ctx's error: the policy is then part way through the epoch,
// so only a caller that keeps nothing of an interrupted run uses it.
func (s *SFT) epochUntil(ctx context.Context, train []*Trajectory) (SFTMetrics, error) {
	start := time.Now()
	m := SFTMetrics{Epoch: s.epoch, TestLoss: nan, TestAccuracy: nan}
	b, err := NewBatch(train)
	if err != nil {
		return m, fmt.Errorf("sft: %w", err)
	}
	perm := derive(s.cfg.Seed, streamSFT, uint64(s.epoch)).Perm(len(train))
	sched := s.cfg.Optim.schedule()
	n, positions, B := 0, 0, s.cfg.MiniBatch
	for lo := 0; lo < len(perm); lo += B {
		if err := ctx.Err(); err != nil {
			return m, err
		}
		idx := perm[lo:min(lo+B, len(perm))]
		sg, err := s.load(b, idx)
		if err != nil {
			return m, err
		}
		if err := sg.g.Run(); err != nil {
			return m, fmt.Errorf("sft: %w", err)
		}
		loss, err := sg.g.Loss()
		if err != nil {
			return m, fmt.Errorf("sft: %w", err)
		}
		m.LR = sched.LR(s.steps)
		norm, skipped, err := step(sg.g, s.policy, s.opt, s.cfg.Optim.MaxGradNorm, m.LR, nil)
		if err == nil {
			err = s.guard.record(skipped)
		}
		if err != nil {
			return m, fmt.Errorf("sft: %w", err)
		}
		if skipped {
			m.SkippedSteps++
		}
		for _, i := range idx {
			positions += int(b.Packed.Offsets[i+1] - b.Packed.Offsets[i])
		}
		m.TrainLoss += loss
		m.GradNorm += norm
		s.steps++
		n++
	}
	m.TrainLoss /= float64(n)
	m.GradNorm /= float64(n)
	m.Steps = s.steps
	m.Seconds = time.Since(start).Seconds()
	m.TokensPerSec = float64(positions) / math.Max(m.Seconds, 1e-9)
	s.epoch++
	return m, nil
}

// Evaluate is the held-out loss (−mean log π over all agent tokens of
// test) and accuracy (the fraction of agent tokens that are the argmax of
// the policy given the demonstration's prefix: teacher-forced).
func (s *SFT) Evaluate(test []*Trajectory) (loss, accuracy float64, err error) {
	b, err := NewBatch(test)
	if err != nil {
		return 0, 0, fmt.Errorf("sft evaluate: %w", err)
	}
	sg, err := s.graph(sftShape{T: s.fullT}, 0)
	if err != nil {
		return 0, 0, fmt.Errorf("sft evaluate: %w", err)
	}
	r, g, V := sg.rows, sg.g, s.policy.Config.Vocab
	sum, right, n := 0.0, 0, 0
	idx := make([]int, 0, r.B)
	for lo := 0; lo < len(test); lo += r.B {
		idx = idx[:0]
		for i := lo; i < min(lo+r.B, len(test)); i++ {
			idx = append(idx, i)
		}
		if err := r.load(b, idx, nil); err != nil {
			return 0, 0, fmt.Errorf("sft evaluate: %w", err)
		}
		if err := g.SetInputs(r.tokens, r.targets); err != nil {
			return 0, 0, fmt.Errorf("sft evaluate: %w", err)
		}
		if err := g.Forward(); err != nil {
			return 0, 0, fmt.Errorf("sft evaluate: %w", err)
		}
		logp, logits := model.Float32s(g.Logp), model.Float32s(g.Logits)
		for t, mk := range r.packed.Mask {
			if mk == 0 {
				continue
			}
			sum -= float64(logp[t])
			if argmax(logits[t*V:(t+1)*V]) == r.targets[t] {
				right++
			}
			n++
		}
	}
	if n == 0 {
		return nan, nan, nil
	}
	return sum / float64(n), float64(right) / float64(n), nil
}

// argmax is the index of the largest value (the lowest on ties).
func argmax(x []float32) int32 {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return int32(best)
}

// Demonstrations plays a scripted policy on instances [first, first+n) of
// split and records them (PlayScripted), instance i with its own stream of
// (seed, i): the training data of SFT.
func Demonstrations(task tasks.Task, policy tasks.Policy, split tasks.Split, first, n int, seed uint64) ([]*Trajectory, error) {
	return NoisyDemonstrations(context.Background(), task, policy, nil, split, first, n, seed)
}

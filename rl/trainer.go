package rl

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"arew/model"
	"arew/optim"
	"arew/tasks"
)

// Trainer is what the RL trainers (PPO, GRPO, GSPO) share: Update runs one
// update — rollout → batch → old log-probs and values → advantages →
// optimisation — and returns its metrics; WriteState and LoadState
// write and read its whole state as files (trainer_state.go), which the
// run layer keeps as one checkpoint set (rl/run.SaveState).
type Trainer interface {
	Update() (Metrics, error)
	Updates() int
	Policy() *model.Model
	WriteState(dir string, info map[string]string) ([]string, error)
	LoadState(dir string, update int, files map[string][]byte) error
	Close()
}

// trainerSpec is the common form PPOConfig and GRPOConfig reduce to.
type trainerSpec struct {
	algo      Algo // the surrogate (actorGraph) and the metrics' name
	seed      uint64
	prompts   int // instances per update
	group     int // rollouts per instance
	instances int // train instances cycled through; 0: fresh ones every update
	rollout   RolloutConfig
	adv       AdvantageConfig
	policy    PolicyConfig
	critic    *CriticConfig // nil: no critic (GRPO, GSPO)
	// sharePrompt: one prefix graph per update, each group's prompt once
	// (prefix.go); needs no critic and the whole batch in one minibatch.
	sharePrompt bool
}

// trainer holds the models, the graphs for the minibatch shape (B, T),
// built once, and the optimisers.
type trainer struct {
	spec     trainerSpec
	task     tasks.Task
	policy   *model.Model
	critic   *model.Model // separate critic, or nil
	ref      *model.Model // frozen initial policy when KL is on, or nil
	roller   *Roller
	rows     *rows
	actor    *actorGraph
	criticG  *criticGraph
	refG     *model.Graph
	actorOpt *optim.AdamW
	critOpt  *optim.AdamW
	guard    skipGuard
	update   int
	spare    []*Trajectory // the last update's trajectories, recorded over by the next rollout
	batch    *Batch        // the last update's batch, packed over by the next
	prefix   *prefixGraphs // the shared-prompt graphs, or nil (then rows, actor and refG)
	extra    ExtraLoss     // a term added to the policy's loss at every step, or nil
}

// newTrainer validates the models against the spec and builds everything
// an update needs. critic is the separate critic (nil: a fresh one of the
// policy's architecture, initialised from the run seed).
func newTrainer(task tasks.Task, policy, critic *model.Model, s trainerSpec) (*trainer, error) {
	roller, err := NewRoller(policy, task, s.rollout)
	if err != nil {
		return nil, err
	}
	t := &trainer{spec: s, task: task, policy: policy, roller: roller, guard: newSkipGuard(s.policy.MaxSkipped)}
	T := roller.MaxLen() - 1 // a trajectory of ≤ MaxLen tokens has ≤ MaxLen−1 predictions
	B := min(s.policy.MiniBatch, s.prompts*s.group)
	if s.sharePrompt {
		if s.critic != nil || B < s.prompts*s.group || s.policy.HeadRows {
			return nil, fmt.Errorf("%s: sharing the prompt needs no critic, the whole batch in one minibatch and no head rows", s.algo)
		}
		return newPrefixTrainer(t, T)
	}
	t.rows = newRows(B, T)
	if isMasked(task) {
		t.rows.V = policy.Config.Vocab
		t.rows.bias = make([]float32, B*T*t.rows.V)
	}
	shared := s.sharedCritic()
	if shared != nil && !policy.Config.ValueHead {
		return nil, fmt.Errorf("%s: a shared critic needs a policy with a value head (model.Config.WithValueHead)", s.algo)
	}
	heads := 0 // plain graphs; with head rows, the capacity to start from (head_rows.go)
	if s.policy.HeadRows {
		heads = headCapacity(B*T/4, B*T)
	}
	if t.actor, err = newActorGraph(policy, t.rows, s.policy, s.algo, shared, heads); err != nil {
		return nil, fmt.Errorf("%s: %w", s.algo, err)
	}
	if t.actorOpt, err = optim.NewAdamW(policy.Params.Params(), s.policy.Optim.adamw()); err != nil {
		return nil, fmt.Errorf("%s: %w", s.algo, err)
	}
	if s.critic != nil && s.critic.Mode == CriticSeparate {
		if critic == nil {
			if critic, err = model.New(policy.Config.Critic(), deriveSeed(s.seed, streamCritic)); err != nil {
				return nil, fmt.Errorf("%s: critic: %w", s.algo, err)
			}
		}
		if !critic.Config.ValueHead || critic.Config.Vocab != policy.Config.Vocab || critic.Config.Context < T {
			return nil, fmt.Errorf("%s: the critic needs a value head, the policy's vocabulary (%d) and a context ≥ %d; got %+v",
				s.algo, policy.Config.Vocab, T, critic.Config)
		}
		t.critic = critic
		if t.criticG, err = newCriticGraph(critic, t.rows, *s.critic, heads); err != nil {
			return nil, fmt.Errorf("%s: %w", s.algo, err)
		}
		if t.critOpt, err = optim.NewAdamW(critic.Params.Params(), s.critic.Optim.adamw()); err != nil {
			return nil, fmt.Errorf("%s: %w", s.algo, err)
		}
	}
	if s.policy.KLCoef > 0 {
		if t.ref, err = policy.Clone(); err != nil { // the frozen reference of the KL term
			return nil, fmt.Errorf("%s: reference: %w", s.algo, err)
		}
		if t.refG, err = policyGraph(t.ref, t.rows); err != nil {
			return nil, fmt.Errorf("%s: reference: %w", s.algo, err)
		}
	}
	return t, nil
}

// Close releases the graphs' machines.
func (t *trainer) Close() {
	if t.prefix != nil {
		t.prefix.close()
		return
	}
	t.actor.g.Close()
	if t.criticG != nil {
		t.criticG.g.Close()
	}
	if t.refG != nil {
		t.refG.Close()
	}
}

// Policy is the model being trained.
func (t *trainer) Policy() *model.Model { return t.policy }

// Critic is the separate critic, or nil.
func (t *trainer) Critic() *model.Model { return t.critic }

// Updates is the number of updates done so far (the next update's index).
func (t *trainer) Updates() int { return t.update }

// specs lists update u's episodes: prompts consecutive train instances
// (cycling through the first `instances` ones if set), group rollouts each.
func (t *trainer) specs(u int) []EpisodeSpec {
	s := t.spec
	out := make([]EpisodeSpec, 0, s.prompts*s.group)
	for p := range s.prompts {
		idx := u*s.prompts + p
		if s.instances > 0 {
			idx %= s.instances
		}
		for range s.group {
			out = append(out, EpisodeSpec{Split: tasks.Train, Index: idx, Group: p})
		}
	}
	return out
}

// Update runs one update and returns its metrics.
func (t *trainer) Update() (Metrics, error) {
	u := t.update
	m := Metrics{Update: u, Algo: t.spec.algo}
	trajs, rs, err := t.roller.PlayInto(t.specs(u), t.spec.seed, u, t.spare)
	t.spare = trajs
	if errors.Is(err, model.ErrNonFiniteLogits) {
		err = fmt.Errorf("%w: the policy's logits are not finite: %v", ErrDiverged, err)
	}
	if err != nil {
		return m, fmt.Errorf("%s update %d: %w", t.spec.algo, u, err)
	}
	m.setEpisodes(trajs)
	m.RolloutSeconds = rs.Seconds
	m.RolloutTokensPerSec = float64(rs.Tokens) / math.Max(rs.Seconds, 1e-9)

	start := time.Now()
	b, err := NewBatchInto(t.batch, trajs)
	t.batch = b
	if err != nil {
		return m, fmt.Errorf("%s update %d: %w", t.spec.algo, u, err)
	}
	ref, gap, err := t.prepare(b)
	if err != nil {
		return m, fmt.Errorf("%s update %d: %w", t.spec.algo, u, err)
	}
	m.LogpGapMax = gap
	st, err := Advantages(b, t.spec.adv, u, derive(t.spec.seed, streamCritique, uint64(u)))
	if err != nil {
		return m, fmt.Errorf("%s update %d: %w", t.spec.algo, u, err)
	}
	m.AREWActive = t.spec.adv.AREW.Active(u)
	m.AREWTrajectories, m.AREWMeanAbs, m.AREWFlipped = st.MarginTrajectories, st.MeanAbsCorrection, st.Flipped
	m.AREWASAbs, m.AREWBTAbs = st.AS.AbsCorrection, st.BT.AbsCorrection
	m.AREWASPos, m.AREWASNeg, m.AREWBTPos, m.AREWBTNeg = st.AS.Pos, st.AS.Neg, st.BT.Pos, st.BT.Neg
	m.AdvMean, m.AdvStd = agentMeanStd(b.Adv, b.Packed.Mask)
	m.PrepSeconds = time.Since(start).Seconds()

	start = time.Now()
	positions, err := t.optimise(b, ref, u, &m)
	if err != nil {
		return m, fmt.Errorf("%s update %d: %w", t.spec.algo, u, err)
	}
	m.OptimSeconds = time.Since(start).Seconds()
	m.TrainTokensPerSec = float64(positions) / math.Max(m.OptimSeconds, 1e-9)
	t.update++
	return m, nil
}

// prepare recomputes, with the training graph's forward and the current
// weights, what the losses compare against (as verl does): b.OldLogp (the
// sampling log-probs, recomputed so that the first minibatch's ratio is
// exactly 1; it returns the largest gap between the two), b.Values from the
// critic, and the reference policy's log-probs (nil without KL). Chunks of
// B trajectories in batch order go through the same (B, T) graphs as the
// optimisation.
func (t *trainer) prepare(b *Batch) (ref []float32, gap float64, err error) {
	if t.ref != nil {
		ref = make([]float32, b.NumTokens())
	}
	chunk := t.chunk()
	idx := make([]int, 0, chunk)
	for lo := 0; lo < len(b.Trajs); lo += chunk {
		idx = idx[:0]
		for i := lo; i < min(lo+chunk, len(b.Trajs)); i++ {
			idx = append(idx, i)
		}
		r, a, refG, err := t.minibatch(b, idx, nil)
		if err != nil {
			return nil, 0, err
		}
		g := a.g
		if err := setInputs(g, r); err != nil {
			return nil, 0, err
		}
		if err := g.Forward(); err != nil {
			return nil, 0, err
		}
		logp := model.Float32s(g.Logp)
		for k, i := range r.traj {
			if i < 0 {
				continue
			}
			off := int(b.Packed.Offsets[i]) + r.startOf(k)
			for j := range int(b.Packed.Offsets[i+1]) - off {
				if b.Packed.Mask[off+j] == 1 {
					gap = math.Max(gap, math.Abs(float64(logp[k*r.T+j])-float64(b.OldLogp[off+j])))
				}
			}
		}
		r.scatter(b, logp, b.OldLogp, true)
		switch {
		case t.criticG != nil:
			if err := setInputs(t.criticG.g, r); err != nil {
				return nil, 0, err
			}
			if err := t.criticG.g.Forward(); err != nil {
				return nil, 0, err
			}
			r.scatter(b, model.Float32s(t.criticG.g.Values), b.Values, false)
		case g.Values != nil:
			r.scatter(b, model.Float32s(g.Values), b.Values, false)
		}
		if refG != nil {
			if err := setInputs(refG, r); err != nil {
				return nil, 0, err
			}
			if err := refG.Forward(); err != nil {
				return nil, 0, err
			}
			r.scatter(b, model.Float32s(refG.Logp), ref, true)
		}
	}
	return ref, gap, nil
}

// optimise runs the epochs: each shuffles the batch (its own stream of the
// run seed) and takes one actor step (and one critic step) per minibatch.
// It fills the optimisation metrics and returns the unpadded positions
// processed.
func (t *trainer) optimise(b *Batch, ref []float32, u int, m *Metrics) (int, error) {
	s := t.spec
	rng := derive(s.seed, streamShuffle, uint64(u))
	m.LR = s.policy.Optim.schedule().LR(u)
	m.CriticLR, m.ValueLoss, m.ValueClipFrac, m.CriticGradNorm, m.RefKL = nan, nan, nan, nan, nan
	if t.critOpt != nil {
		m.CriticLR = s.critic.Optim.schedule().LR(u)
	}
	var sum optimStats
	steps, positions := 0, 0
	chunk := t.chunk()
	idx := make([]int, 0, chunk)
	a := t.actor // under a shared prompt, the graph of each minibatch's answer length
	for epoch := range s.policy.Epochs {
		perm := rng.Perm(len(b.Trajs))
		for lo := 0; lo < len(perm); lo += chunk {
			idx = append(idx[:0], perm[lo:min(lo+chunk, len(perm))]...)
			r, ag, _, err := t.minibatch(b, idx, ref)
			if err != nil {
				return 0, err
			}
			a = ag
			for _, i := range idx {
				positions += int(b.Packed.Offsets[i+1] - b.Packed.Offsets[i])
			}
			if err := setInputs(a.g, r); err != nil {
				return 0, err
			}
			if err := a.g.Run(); err != nil {
				return 0, err
			}
			if epoch == 0 && lo == 0 {
				m.FirstLogRatioMax = maxAbsLogRatio(model.Float32s(a.g.Logp), r.oldLogp, r.packed.Mask)
			}
			ent, err := entropyOf(model.Float32s(a.g.Entropy), r, a)
			if err != nil {
				return 0, err
			}
			sum.PolicyLoss += a.pol.Loss
			sum.Entropy += ent
			sum.ApproxKL += a.pol.ApproxKL
			sum.ClipFrac += a.pol.ClipFrac
			sum.ClipFracLower += a.pol.ClipFracLower
			if a.kl != nil {
				sum.RefKL += a.kl.KL
			}
			if a.val != nil {
				sum.ValueLoss += a.val.Loss
				sum.ValueClipFrac += a.val.ClipFrac
			}
			norm, err := t.stepNet(a.g, t.policy, t.actorOpt, s.policy.Optim.MaxGradNorm, m.LR, t.extra, m)
			if err != nil {
				return 0, err
			}
			sum.GradNorm += norm
			if t.criticG != nil {
				cg := t.criticG
				if err := setInputs(cg.g, r); err != nil {
					return 0, err
				}
				if err := cg.g.Run(); err != nil {
					return 0, err
				}
				sum.ValueLoss += cg.val.Loss
				sum.ValueClipFrac += cg.val.ClipFrac
				norm, err := t.stepNet(cg.g, t.critic, t.critOpt, s.critic.Optim.MaxGradNorm, m.CriticLR, nil, m)
				if err != nil {
					return 0, err
				}
				sum.CriticGradNorm += norm
			}
			steps++
		}
	}
	n := float64(steps)
	m.OptimSteps = steps
	m.PolicyLoss, m.Entropy, m.ApproxKL = sum.PolicyLoss/n, sum.Entropy/n, sum.ApproxKL/n
	m.ClipFrac, m.ClipFracLower, m.GradNorm = sum.ClipFrac/n, sum.ClipFracLower/n, sum.GradNorm/n
	if a != nil && a.kl != nil {
		m.RefKL = sum.RefKL / n
	}
	if (a != nil && a.val != nil) || t.criticG != nil {
		m.ValueLoss, m.ValueClipFrac = sum.ValueLoss/n, sum.ValueClipFrac/n
	}
	if t.criticG != nil {
		m.CriticGradNorm = sum.CriticGradNorm / n
	}
	return positions, nil
}

// optimStats are the sums over an update's optimiser steps of what
// Metrics reports as means.
type optimStats struct {
	PolicyLoss, Entropy, ApproxKL, RefKL     float64
	ClipFrac, ClipFracLower, GradNorm        float64
	ValueLoss, ValueClipFrac, CriticGradNorm float64
}

var nan = math.NaN()

// entropyOf is the policy's entropy aggregated like the loss (verl
// actor/entropy).
func entropyOf(ent []float32, r *rows, a *actorGraph) (float64, error) {
	return a.ent.Aggregate32(ent, r.packed, a.agg)
}

// maxAbsLogRatio is max |logp − old| over the agent predictions.
func maxAbsLogRatio(logp []float32, old []float64, mask []uint8) float64 {
	worst := 0.0
	for t, mk := range mask {
		if mk == 1 {
			worst = math.Max(worst, math.Abs(float64(logp[t])-old[t]))
		}
	}
	return worst
}

// agentMeanStd is the mean and (population) standard deviation of x over
// the agent predictions, in float64.
func agentMeanStd(x []float32, mask []uint8) (float64, float64) {
	s, n := 0.0, 0
	for t, mk := range mask {
		if mk == 1 {
			s += float64(x[t])
			n++
		}
	}
	if n == 0 {
		return nan, nan
	}
	mean := s / float64(n)
	v := 0.0
	for t, mk := range mask {
		if mk == 1 {
			d := float64(x[t]) - mean
			v += d * d
		}
	}
	return mean, math.Sqrt(v / float64(n))
}

// Every random choice of a run draws from its own stream derived from the
// run seed, so adding a draw to one component never shifts another's, and a
// result depends only on (seed, what it is, which update, which item) —
// never on worker count or scheduling.
const (
	streamRollout  uint64 = iota + 1 // (update, episode index) → the episode's sampling
	streamShuffle                    // (update) → the minibatch order of every epoch
	streamCritique                   // (update) → the AREW critique perturbation
	streamCritic                     // () → the separate critic's initial weights
	streamSFT                        // (epoch) → SFT's minibatch order
	streamEval                       // (episode index) → sampled evaluation
	streamNoise                      // (split, instance) → a noisy demonstration's noise (DemoNoise)
	streamDAgger                     // (round, instance) → a DAgger round's mixture and the learner's sampling
)

// mix64 is SplitMix64's finaliser: a bijection of uint64 whose output bits
// all depend on all input bits.
func mix64(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9
	x = (x ^ (x >> 27)) * 0x94D049BB133111EB
	return x ^ (x >> 31)
}

// deriveSeed hashes (seed, stream, parts…) into one 64-bit seed.
func deriveSeed(seed, stream uint64, parts ...uint64) uint64 {
	h := mix64(seed ^ mix64(stream))
	for _, p := range parts {
		h = mix64(h ^ p)
	}
	return h
}

// derive is a generator for one component: a PCG seeded by
// deriveSeed(seed, stream, parts…).
func derive(seed, stream uint64, parts ...uint64) *rand.Rand {
	h := deriveSeed(seed, stream, parts...)
	return rand.New(rand.NewPCG(h, mix64(h)))
}

// Metrics describe one update; one JSON object per update is a line of a
// run's metrics.jsonl. Episode measures are means over the update's
// episodes (tasks.Summarize; NaN where no episode has the measure, e.g. BT
// measures on a task without beliefs); losses and the like are means over
// the update's minibatches. Not applicable is NaN (the value loss of a
// critic-free trainer, the reference KL without KL), written as null.
type Metrics struct {
	Update   int  `json:"update"`
	Algo     Algo `json:"algo"`
	Episodes int  `json:"episodes"`

	// Episodes.
	Reward      float64 `json:"reward"`
	Success     float64 `json:"success"`
	ASProxy     float64 `json:"as_proxy"`
	BTProxy     float64 `json:"bt_proxy"`
	IAS         float64 `json:"i_as"`
	CBT         float64 `json:"c_bt"`
	Evidence    float64 `json:"evidence"`
	Turns       float64 `json:"turns"`
	Malformed   float64 `json:"malformed"`
	Truncated   int     `json:"truncated"`
	ResponseLen float64 `json:"response_len"` // agent tokens per episode

	// Advantages: the AREW correction's reach.
	AREWActive       bool    `json:"arew_active"`
	AREWTrajectories float64 `json:"arew_margin_trajectories"` // fraction with both a +1 and a −1 critique
	AREWMeanAbs      float64 `json:"arew_mean_abs_correction"` // mean |λu| over agent tokens
	AREWFlipped      int     `json:"arew_flipped"`
	// Where the correction goes, per step kind (AdvantageStats.AS, .BT).
	AREWASAbs float64 `json:"arew_as_abs_correction"`
	AREWBTAbs float64 `json:"arew_bt_abs_correction"`
	AREWASPos float64 `json:"arew_as_pos"`
	AREWASNeg float64 `json:"arew_as_neg"`
	AREWBTPos float64 `json:"arew_bt_pos"`
	AREWBTNeg float64 `json:"arew_bt_neg"`
	AdvMean   float64 `json:"adv_mean"` // over agent tokens, after the correction
	AdvStd    float64 `json:"adv_std"`

	// Optimisation.
	PolicyLoss     float64 `json:"policy_loss"` // the surrogate alone
	ValueLoss      float64 `json:"value_loss"`
	Entropy        float64 `json:"entropy"`
	ApproxKL       float64 `json:"approx_kl"` // mean −log r (verl ppo_kl)
	RefKL          float64 `json:"ref_kl"`    // KL to the initial policy, if on
	ClipFrac       float64 `json:"clip_frac"`
	ClipFracLower  float64 `json:"clip_frac_lower"` // dual clip
	ValueClipFrac  float64 `json:"value_clip_frac"`
	GradNorm       float64 `json:"grad_norm"` // actor, before clipping
	CriticGradNorm float64 `json:"critic_grad_norm"`
	SkippedSteps   int     `json:"skipped_steps"` // non-finite gradient norms
	OptimSteps     int     `json:"optim_steps"`
	LR             float64 `json:"lr"`
	CriticLR       float64 `json:"critic_lr"`

	// Checks. LogpGapMax is the largest |sampling − recomputed| old
	// log-prob over agent tokens (decoder vs training graph: float32
	// rounding, ~1e-6). FirstLogRatioMax is max |log r| on the first
	// minibatch of the first epoch: exactly 0 when the old log-probs are
	// the training graph's own.
	LogpGapMax       float64 `json:"logp_gap_max"`
	FirstLogRatioMax float64 `json:"first_log_ratio_max"`

	// Speed.
	RolloutSeconds      float64 `json:"rollout_s"`
	PrepSeconds         float64 `json:"prep_s"` // old log-probs, values, reference
	OptimSeconds        float64 `json:"optim_s"`
	RolloutTokensPerSec float64 `json:"rollout_tok_s"` // decoded positions per second
	TrainTokensPerSec   float64 `json:"train_tok_s"`   // unpadded positions per second, forward + backward
}

// setEpisodes fills the episode block from the trajectories.
func (m *Metrics) setEpisodes(trajs []*Trajectory) {
	ms := make([]tasks.Measures, len(trajs))
	agent := 0
	m.Truncated = 0
	for i, t := range trajs {
		ms[i] = t.Measures
		agent += t.NumAgentTokens()
		if t.Truncated {
			m.Truncated++
		}
	}
	s := tasks.Summarize(ms)
	m.Episodes = s.Episodes
	m.Reward, m.Success, m.ASProxy, m.BTProxy = s.Reward, s.Success, s.ASProxy, s.BTProxy
	m.IAS, m.CBT, m.Evidence, m.Turns, m.Malformed = s.IAS, s.CBT, s.Evidence, s.Turns, s.Malformed
	m.ResponseLen = float64(agent) / float64(max(len(trajs), 1))
}

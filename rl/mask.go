package rl

import (
	"fmt"
	"math/rand/v2"

	"arew/model"
	"arew/tasks"
)

// Constrained decoding: a task may restrict which tokens its agent can
// write (rl/act's prefix tree over the admissible commands). Such a task
// is a MaskedTask whose Masked reports true, and its episodes are
// MaskedEpisodes. Before every agent token the rollout asks the episode
// which tokens may come next, moves the logits of all others down by
// MaskBias and samples from what is left: the policy's softmax
// renormalised over the allowed tokens,
//
//	q(j) = exp(z_j) / Σ_{k allowed} exp(z_k)   for j allowed, 0 otherwise.
//
// The trajectory keeps each token's allowed set (Trajectory.Allowed), and
// the trainer builds its graphs with the same bias under the log-probs and
// the entropy (model.NewMaskedGraph), so the old and the new log-probs of
// the ratio, the gradient and the entropy are all those of q, the
// distribution actually sampled from. A task that is not masked runs
// exactly as before: no bias, the plain graphs.

// MaskBias is what a disallowed token's logit gets added, in the rollout
// and in the training graph alike: far enough below any logit that its
// exponential is exactly 0 in float32 and float64, finite so that no
// 0·∞ reaches the entropy or the gradient.
const MaskBias float32 = -1e4

// MaskedTask is a task whose agent may decode under a mask: when Masked
// reports true, every episode it makes must be a MaskedEpisode.
type MaskedTask interface {
	tasks.Task
	Masked() bool
}

// MaskedEpisode is an episode of a masked task. Allowed lists the tokens
// the agent may write next, given the tokens of the current turn so far
// (EOT among them where the turn may end); an empty list leaves the token
// unconstrained. The rollout holds the list until the turn is recorded,
// then copies it: the episode must not change it before its next Step.
type MaskedEpisode interface {
	Allowed(turn []tasks.Token) []tasks.Token
}

// isMasked reports whether task decodes under a mask.
func isMasked(task tasks.Task) bool {
	m, ok := task.(MaskedTask)
	return ok && m.Masked()
}

// maskedEpisode is ep as a MaskedEpisode when task decodes under a mask,
// nil when it does not; a masked task whose episode cannot say which
// tokens are allowed is an error.
func maskedEpisode(task tasks.Task, ep tasks.Episode) (MaskedEpisode, error) {
	if !isMasked(task) {
		return nil, nil
	}
	me, ok := ep.(MaskedEpisode)
	if !ok {
		return nil, fmt.Errorf("task %s is masked but its episode %T cannot say which tokens are allowed", task.Name(), ep)
	}
	return me, nil
}

// sampleAllowed samples a token from the logits row under allowed (empty:
// unconstrained; MaskLogits), the masked row written into *scratch, grown
// to fit: how a rollout and a DAgger learner pick their tokens.
func sampleAllowed(smp *model.Sampler, rng *rand.Rand, row []float32, allowed []tasks.Token, scratch *[]float32) (model.Sampled, error) {
	if len(allowed) > 0 {
		if cap(*scratch) < len(row) {
			*scratch = make([]float32, len(row))
		}
		var err error
		if row, err = MaskLogits(*scratch, row, allowed); err != nil {
			return model.Sampled{}, err
		}
	}
	return smp.Sample(rng, row)
}

// MaskLogits is logits with every token outside allowed moved down by
// MaskBias, written into dst (which needs len(logits) room) and returned;
// with no allowed tokens it returns logits itself. An allowed id outside
// the row is an error, and dst is then left alone.
func MaskLogits(dst, logits []float32, allowed []tasks.Token) ([]float32, error) {
	if len(allowed) == 0 {
		return logits, nil
	}
	for _, a := range allowed {
		if a < 0 || int(a) >= len(logits) {
			return nil, fmt.Errorf("mask: allowed token %d outside the vocabulary [0, %d)", a, len(logits))
		}
	}
	dst = dst[:len(logits)]
	for j, z := range logits {
		dst[j] = z + MaskBias
	}
	for _, a := range allowed {
		dst[a] = logits[a]
	}
	return dst, nil
}

// maskRow fills one row of a logit bias (the graph's LogitBias): 0 for the
// allowed tokens, MaskBias for the others; all 0 when allowed is empty.
func maskRow(row []float32, allowed []tasks.Token) {
	if len(allowed) == 0 {
		clear(row)
		return
	}
	for j := range row {
		row[j] = MaskBias
	}
	for _, a := range allowed {
		row[a] = 0
	}
}

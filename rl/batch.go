package rl

import (
	"fmt"
	"math"

	"arew/kernels"
)

// Batch packs trajectories for the advantage kernels and the losses, in
// prediction order: the model reads token j and predicts token j+1, so a
// trajectory of L tokens has L−1 predictions, and every per-token array
// below is indexed by prediction (T = Σ (L_b − 1) in all).
//
//	Packed.Offsets (B+1), Packed.Mask (T): mask[j] = 1 if token j+1 is the agent's
//	Targets (T) int32:   the token predicted, Tokens[j+1]
//	OldLogp (T):         log π_old of the target (sampling, or recomputed)
//	Values  (T):         the critic's value of the state before the target
//	Rewards (T):         the outcome reward on the trajectory's last agent
//	                     prediction, 0 elsewhere (γ = 1 credit assignment)
//	Adv, Returns (T):    filled by Advantages
//	Steps:               the step spans in prediction indices, with critiques
type Batch struct {
	Trajs   []*Trajectory
	Packed  kernels.Packed
	Targets []int32
	OldLogp []float32
	Values  []float32
	Rewards []float32
	Adv     []float32
	Returns []float32
	Steps   kernels.Steps
	// StepKinds (S) parallels Steps: the kind of each step, so the AREW
	// options can select AS or BT critiques.
	StepKinds []uint8
	// Groups (B): dense group ids for the group baseline.
	Groups []int32
}

// NewBatch validates and packs trajectories.
func NewBatch(trajs []*Trajectory) (*Batch, error) { return NewBatchInto(nil, trajs) }

// NewBatchInto is NewBatch packing into prev's memory (prev nil: new
// memory), for a trainer that packs a batch every update and no longer
// needs the last one: prev is overwritten and returned (or left invalid,
// on error). The batch is the same as NewBatch's (TestNewBatchIntoMatchesNewBatch).
func NewBatchInto(prev *Batch, trajs []*Trajectory) (*Batch, error) {
	b := prev
	if b == nil {
		b = new(Batch)
	}
	old := *b
	*b = Batch{Trajs: trajs}
	offsets := append(old.Packed.Offsets[:0], 0)
	total := 0
	for i, t := range trajs {
		if err := t.Validate(); err != nil {
			return nil, fmt.Errorf("batch: trajectory %d: %w", i, err)
		}
		total += len(t.Tokens) - 1
		if total > math.MaxInt32 {
			return nil, fmt.Errorf("batch: more than %d predictions", math.MaxInt32)
		}
		offsets = append(offsets, int32(total))
	}
	mask := zeroed(old.Packed.Mask, total)
	b.Targets = zeroed(old.Targets, total)
	b.OldLogp = zeroed(old.OldLogp, total)
	b.Values = zeroed(old.Values, total)
	b.Rewards = zeroed(old.Rewards, total)
	b.Adv = zeroed(old.Adv, total)
	b.Returns = zeroed(old.Returns, total)
	b.Steps = kernels.Steps{Offsets: append(old.Steps.Offsets[:0], 0), Start: old.Steps.Start[:0],
		End: old.Steps.End[:0], Critique: old.Steps.Critique[:0]}
	b.StepKinds = old.StepKinds[:0]
	b.Groups = zeroed(old.Groups, len(trajs))
	dense := map[int]int32{}
	for i, t := range trajs {
		base := int(offsets[i])
		last := -1
		for j := 0; j+1 < len(t.Tokens); j++ {
			b.Targets[base+j] = t.Tokens[j+1]
			if t.Agent[j+1] {
				mask[base+j] = 1
				b.OldLogp[base+j] = t.Logp[j+1]
				last = base + j
			}
		}
		if last >= 0 {
			b.Rewards[last] = float32(t.Reward)
		}
		for _, s := range t.Steps {
			if len(s.TokenZ) > 0 {
				// Judged token by token: each token is a step of its own.
				for k, z := range s.TokenZ {
					b.Steps.Start = append(b.Steps.Start, int32(base+s.Start+k-1))
					b.Steps.End = append(b.Steps.End, int32(base+s.Start+k))
					b.Steps.Critique = append(b.Steps.Critique, z)
					b.StepKinds = append(b.StepKinds, uint8(s.Kind))
				}
				continue
			}
			b.Steps.Start = append(b.Steps.Start, int32(base+s.Start-1))
			b.Steps.End = append(b.Steps.End, int32(base+s.End-1))
			b.Steps.Critique = append(b.Steps.Critique, s.Z)
			b.StepKinds = append(b.StepKinds, uint8(s.Kind))
		}
		b.Steps.Offsets = append(b.Steps.Offsets, int32(len(b.Steps.Critique)))
		g, ok := dense[t.Group]
		if !ok {
			g = int32(len(dense))
			dense[t.Group] = g
		}
		b.Groups[i] = g
	}
	p, err := kernels.NewPacked(offsets, mask)
	if err != nil {
		return nil, fmt.Errorf("batch: %w", err)
	}
	b.Packed = p
	if err := b.Steps.Validate(p); err != nil {
		return nil, fmt.Errorf("batch: %w", err)
	}
	return b, nil
}

// zeroed is n zeros in s's memory when it has room, else new memory (as
// make gives them).
func zeroed[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// NumTokens is T, the number of predictions.
func (b *Batch) NumTokens() int { return len(b.Targets) }

// NumAgentTokens counts the trained predictions.
func (b *Batch) NumAgentTokens() int {
	n := 0
	for _, m := range b.Packed.Mask {
		n += int(m)
	}
	return n
}

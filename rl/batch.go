package rl

import (
	"fmt"
	"math"

	"arew/kernels"
	"arew/model"
	"arew/optim"
	"arew/tasks"
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

// rows is a minibatch as the training graph sees it: B rows of T
// positions, row r holding one trajectory's predictions right-padded to T
// (prediction j reads token j and predicts token j+1, as in Batch), and
// the per-prediction inputs of the losses at the same index r·T + j.
//
//	tokens, targets (B·T) int32   Tokens[j], Tokens[j+1]; padding: Pad → Pad
//	packed                        Offsets r·T (fixed), Mask (B·T) refilled
//	oldLogp, adv, refLogp,
//	oldValues, returns (B·T)      float64, refilled in place
//
// The loss nodes bind these slices by reference when the graph is built
// (optim's *Node builders), so they are allocated once and only ever
// overwritten: a minibatch is loaded by copying into them, and the same
// compiled graph is rerun. Rows past the minibatch's trajectories are
// empty (mask 0), so the last, partial minibatch reuses the graph too;
// every aggregation skips rows without agent tokens.
type rows struct {
	B, T            int
	tokens, targets []int32
	packed          optim.Packed
	oldLogp, adv    []float64
	refLogp         []float64
	oldValues       []float64
	returns         []float64
	traj            []int // the batch trajectory in each row, −1 for padding
	// bias (B·T·V), for a masked task only (mask.go): the logit bias of
	// each prediction, MaskBias outside the set its token was sampled
	// under, 0 inside and at every unconstrained prediction.
	bias []float32
	V    int
	// For the answer rows of shared prompts (prefix.go), else nil: the
	// prefix graph's layout, its trunk's tokens, positions and prompt
	// lengths, each row's first prediction in its trajectory (start), and
	// the plain graph's length, which the loss aggregation reads (plainT).
	prefix                 *model.PrefixShape
	trunk, positions, lens []int32
	start                  []int
	plainT                 int
	agent                  []int32 // agentRows' memory
}

// startOf is the prediction of row k's trajectory at the row's first
// position: 0 in the plain layout, after the shared prompt in a prefix one.
func (r *rows) startOf(k int) int {
	if r.start == nil {
		return 0
	}
	return r.start[k]
}

// aggLen is the sequence length the loss aggregation is built for: the
// plain graph's (a prefix graph computes the same loss).
func (r *rows) aggLen() int {
	if r.prefix != nil {
		return r.plainT
	}
	return r.T
}

func newRows(B, T int) *rows {
	n := B * T
	r := &rows{B: B, T: T, tokens: make([]int32, n), targets: make([]int32, n),
		oldLogp: make([]float64, n), adv: make([]float64, n), refLogp: make([]float64, n),
		oldValues: make([]float64, n), returns: make([]float64, n), traj: make([]int, B)}
	r.packed.Offsets = make([]int32, B+1)
	for i := range r.packed.Offsets {
		r.packed.Offsets[i] = int32(i * T)
	}
	r.packed.Mask = make([]uint8, n)
	return r
}

// load fills the rows with trajectories idx of b (at most B of them),
// copying the per-prediction arrays of b and, if ref is not nil, the
// reference log-probs (one per prediction of b).
func (r *rows) load(b *Batch, idx []int, ref []float32) error {
	if len(idx) > r.B {
		return fmt.Errorf("minibatch: %d trajectories for %d rows", len(idx), r.B)
	}
	r.reset()
	for k, i := range idx {
		tr := b.Trajs[i]
		off, n := int(b.Packed.Offsets[i]), int(b.Packed.Offsets[i+1]-b.Packed.Offsets[i])
		if n > r.T {
			return fmt.Errorf("minibatch: trajectory %d has %d predictions, more than the graph's %d", i, n, r.T)
		}
		r.traj[k] = i
		copy(r.tokens[k*r.T:k*r.T+n], tr.Tokens[:n])
		r.fill(b, ref, k*r.T, off, n, tr.Allowed, 0)
	}
	return nil
}

// reset empties every row: token and target 0 (tasks.Pad, predicting
// Pad), mask 0, no trajectory, and the prefix layout's trunk zeroed.
func (r *rows) reset() {
	clear(r.tokens)
	clear(r.targets)
	clear(r.packed.Mask)
	for _, s := range [][]float64{r.oldLogp, r.adv, r.refLogp, r.oldValues, r.returns} {
		clear(s)
	}
	clear(r.bias)
	clear(r.trunk)
	clear(r.positions)
	clear(r.lens)
	clear(r.start)
	for k := range r.traj {
		r.traj[k] = -1
	}
}

// fill copies b's predictions off … off+n−1 (and ref's, if not nil) into
// positions base … base+n−1 of the rows; they are a trajectory's
// predictions first, first+1, …, whose allowed sets (a masked task's,
// else empty) become the logit bias.
func (r *rows) fill(b *Batch, ref []float32, base, off, n int, allowed [][]tasks.Token, first int) {
	copy(r.targets[base:base+n], b.Targets[off:off+n])
	copy(r.packed.Mask[base:base+n], b.Packed.Mask[off:off+n])
	for j := range n {
		r.oldLogp[base+j] = float64(b.OldLogp[off+j])
		r.adv[base+j] = float64(b.Adv[off+j])
		r.oldValues[base+j] = float64(b.Values[off+j])
		r.returns[base+j] = float64(b.Returns[off+j])
		if ref != nil {
			r.refLogp[base+j] = float64(ref[off+j])
		}
		if r.bias != nil && len(allowed) > 0 {
			maskRow(r.bias[(base+j)*r.V:(base+j+1)*r.V], allowed[first+j+1])
		}
	}
}

// scatter copies a graph output (B·T, e.g. Logp or Values) back into a
// per-prediction array of b, for the loaded rows' real predictions; with
// agentOnly, only at agent predictions.
func (r *rows) scatter(b *Batch, src []float32, dst []float32, agentOnly bool) {
	for k, i := range r.traj {
		if i < 0 {
			continue
		}
		off := int(b.Packed.Offsets[i]) + r.startOf(k)
		for j := range int(b.Packed.Offsets[i+1]) - off {
			if !agentOnly || b.Packed.Mask[off+j] == 1 {
				dst[off+j] = src[k*r.T+j]
			}
		}
	}
}

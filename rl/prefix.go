package rl

import (
	"fmt"

	"arew/model"
	"arew/optim"
)

// Sharing the prompt (GRPOConfig.SharePrompt). A GRPO group is G answers
// to one prompt; on single-turn tasks the answers are a few tokens after a
// prompt of hundreds, and the plain graph runs the prompt G times, in the
// old log-probs, the reference's and every epoch's forward and backward.
// Here each update's batch goes through a prefix graph instead
// (model.NewPrefixGraph): group p's shared prompt once, then each answer
// as a block of rows attending to it. A group's shared prompt is its
// trajectories' common tokens before the first agent prediction of any of
// them, n0; answer block g holds its trajectory's predictions n0, n0+1, …
// (the first reads the prompt's last token, which is repeated in every
// block), so the answer rows are the plain graph's rows of those
// predictions, and the loss, built on them as on plain rows, is the plain
// loss to float32 rounding (TestSharedPromptMatchesPlain). The blocks'
// length grows to the longest answer seen (in steps of 4; the graphs are
// rebuilt then), the prompts' is the plain graph's T.

// prefixGraphs is the trainer's state under a shared prompt: the rows of
// the whole batch as the prefix graphs read them, the actor's graph and
// loss, and the frozen reference's graph when the loss has a KL term.
type prefixGraphs struct {
	t     *trainer
	T     int // the plain graph's length
	r     *rows
	actor *actorGraph
	refG  *model.Graph
}

// newPrefixTrainer finishes newTrainer for a shared prompt: the optimiser
// and the reference; the graphs are built by the first batch.
func newPrefixTrainer(t *trainer, T int) (*trainer, error) {
	s := t.spec
	var err error
	t.prefix = &prefixGraphs{t: t, T: T}
	if t.actorOpt, err = optim.NewAdamW(t.policy.Params.Params(), s.policy.Optim.adamw()); err != nil {
		return nil, fmt.Errorf("%s: %w", s.algo, err)
	}
	if s.policy.KLCoef > 0 {
		if t.ref, err = t.policy.Clone(); err != nil {
			return nil, fmt.Errorf("%s: reference: %w", s.algo, err)
		}
	}
	return t, nil
}

func (p *prefixGraphs) close() {
	if p.actor != nil {
		p.actor.g.Close()
	}
	if p.refG != nil {
		p.refG.Close()
	}
}

// chunk is how many trajectories one graph run takes.
func (t *trainer) chunk() int {
	if t.prefix != nil {
		return t.spec.prompts * t.spec.group
	}
	return t.rows.B
}

// minibatch loads trajectories idx of b (with the reference log-probs ref,
// if not nil) into the rows of the graph that takes them, and returns the
// rows, the actor's graph and the reference's (nil without KL). Under a
// shared prompt idx must be the whole batch, in any order.
func (t *trainer) minibatch(b *Batch, idx []int, ref []float32) (*rows, *actorGraph, *model.Graph, error) {
	if t.prefix == nil {
		if err := t.rows.load(b, idx, ref); err != nil {
			return nil, nil, nil, err
		}
		if err := t.fitHeadRows(); err != nil {
			return nil, nil, nil, err
		}
		return t.rows, t.actor, t.refG, nil
	}
	if len(idx) != len(b.Trajs) {
		return nil, nil, nil, fmt.Errorf("shared prompt: a minibatch of %d of the batch's %d trajectories", len(idx), len(b.Trajs))
	}
	p := t.prefix
	groups, n0, longest, err := sharedPrompts(b, t.spec.prompts, t.spec.group)
	if err != nil {
		return nil, nil, nil, err
	}
	if p.r == nil || longest > p.r.T {
		if err := p.build(longest); err != nil {
			return nil, nil, nil, err
		}
	}
	if err := p.r.loadShared(b, groups, n0, ref); err != nil {
		return nil, nil, nil, err
	}
	return p.r, p.actor, p.refG, nil
}

// build makes the rows and graphs for answer blocks of at least need rows.
func (p *prefixGraphs) build(need int) error {
	t, s := p.t, p.t.spec
	ta := (max(need, 1) + 3) / 4 * 4
	p.close()
	p.actor, p.refG = nil, nil
	sh := model.PrefixShape{Groups: s.prompts, Prompt: p.T, Answers: s.group, AnswerLen: ta}
	r := newRows(s.prompts*s.group, ta)
	r.prefix, r.plainT = &sh, p.T
	r.trunk, r.positions = make([]int32, sh.Rows()), make([]int32, sh.Rows())
	r.lens, r.start = make([]int32, s.prompts), make([]int, r.B)
	if isMasked(t.task) {
		r.V = t.policy.Config.Vocab
		r.bias = make([]float32, r.B*r.T*r.V)
	}
	var err error
	if p.actor, err = newActorGraph(t.policy, r, s.policy, s.algo, nil, 0); err != nil {
		return fmt.Errorf("%s: shared prompt: %w", s.algo, err)
	}
	if t.ref != nil {
		if p.refG, err = policyGraph(t.ref, r); err != nil {
			return fmt.Errorf("%s: shared prompt: reference: %w", s.algo, err)
		}
	}
	p.r = r
	return nil
}

// sharedPrompts groups the batch's trajectories (groups[p]: its
// trajectories, in batch order) and finds each group's shared prompt
// length n0[p] and the longest answer block, in predictions. Every group
// must have `group` trajectories, and there at most `prompts` groups.
func sharedPrompts(b *Batch, prompts, group int) (groups [][]int, n0 []int, longest int, err error) {
	groups = make([][]int, prompts)
	for i, g := range b.Groups {
		if int(g) >= prompts {
			return nil, nil, 0, fmt.Errorf("shared prompt: group %d of at most %d", g, prompts)
		}
		groups[g] = append(groups[g], i)
	}
	n0 = make([]int, prompts)
	for p, idx := range groups {
		if len(idx) == 0 {
			continue
		}
		if len(idx) != group {
			return nil, nil, 0, fmt.Errorf("shared prompt: group %d has %d trajectories, want %d", p, len(idx), group)
		}
		first := b.Trajs[idx[0]].Tokens
		n := len(first) - 1
		for _, i := range idx {
			off, end := int(b.Packed.Offsets[i]), int(b.Packed.Offsets[i+1])
			j := 0
			for j < end-off && b.Packed.Mask[off+j] == 0 {
				j++
			}
			n = min(n, j)
			toks := b.Trajs[i].Tokens
			for k := 0; k < n; k++ {
				if toks[k] != first[k] {
					n = k
				}
			}
		}
		n0[p] = n
		for _, i := range idx {
			longest = max(longest, int(b.Packed.Offsets[i+1]-b.Packed.Offsets[i])-n)
		}
	}
	return groups, n0, longest, nil
}

// loadShared fills prefix rows with the batch: group p's first n0[p]
// tokens as prompt p (positions 0, 1, …), and trajectory groups[p][g]'s
// predictions from n0[p] on as answer block p·G + g, at their own
// positions, with the per-prediction arrays of b (and ref) copied by
// fill. Padding rows hold token 0 (tasks.Pad) at position 0 and mask 0.
func (r *rows) loadShared(b *Batch, groups [][]int, n0 []int, ref []float32) error {
	sh := r.prefix
	r.reset()
	np := sh.Groups * sh.Prompt
	for p, idx := range groups {
		for s := range sh.Prompt {
			r.positions[p*sh.Prompt+s] = int32(s)
		}
		if len(idx) == 0 {
			continue
		}
		start := n0[p]
		r.lens[p] = int32(start)
		copy(r.trunk[p*sh.Prompt:], b.Trajs[idx[0]].Tokens[:start])
		for g, i := range idx {
			k := p*sh.Answers + g
			tr := b.Trajs[i]
			off := int(b.Packed.Offsets[i]) + start
			n := int(b.Packed.Offsets[i+1]) - off
			if n > r.T {
				return fmt.Errorf("shared prompt: trajectory %d has %d predictions after its prompt, more than the graph's %d", i, n, r.T)
			}
			r.traj[k], r.start[k] = i, start
			base := k * r.T
			for j := range n {
				r.trunk[np+base+j] = tr.Tokens[start+j]
				r.positions[np+base+j] = int32(start + j)
			}
			r.fill(b, ref, base, off, n, tr.Allowed, start)
		}
	}
	return nil
}

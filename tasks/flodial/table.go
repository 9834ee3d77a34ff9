package flodial

import (
	"fmt"
	"math/rand/v2"

	"arew/tasks"
)

// Column kinds of the answer table.
const (
	useless  = iota // NO for every fault
	narrow          // YES for one fault
	balanced        // YES for ⌊K/2⌋ faults
)

// Instance streams: each component draws from its own generator.
const (
	streamTable = 1
	streamTruth = 2
)

// instance is one troubleshooting case: the flowchart as its fault × question
// answer table, and the hidden true fault.
type instance struct {
	// cells[q][f] is the answer (yes, no or unk) to question q when fault f
	// is the cause.
	cells [][]int
	kinds []int
	truth int
}

func (t *Task) instance(split tasks.Split, index int) (*instance, error) {
	inst := &instance{}
	if err := t.draw(inst, &instanceGen{}, split, index); err != nil {
		return nil, err
	}
	return inst, nil
}

// instanceGen is the memory an instance is drawn with: its two generators
// (tasks.InstanceRNG's, reseeded in place by tasks.SeedInstance) and the
// permutation buffer. A recycled episode keeps one (Task.Recycle).
type instanceGen struct {
	tablePCG, truthPCG rand.PCG
	table, truth       *rand.Rand
	perm               []int
}

// draw makes instance index of split in inst's memory, with g's.
func (t *Task) draw(inst *instance, g *instanceGen, split tasks.Split, index int) error {
	if err := tasks.SeedInstance(&g.tablePCG, t.cfg.Seed, split, index, streamTable); err != nil {
		return fmt.Errorf("flodial instance: %w", err)
	}
	if err := tasks.SeedInstance(&g.truthPCG, t.cfg.Seed, split, index, streamTruth); err != nil {
		return fmt.Errorf("flodial instance: %w", err)
	}
	if g.table == nil {
		g.table, g.truth = rand.New(&g.tablePCG), rand.New(&g.truthPCG)
	}
	g.perm = tasks.Resize(g.perm, t.cfg.Faults)
	t.generate(inst, g.table, g.truth, g.perm)
	return nil
}

// generate draws an instance into inst's memory from its two generators:
// the table from tr, the truth from hr. Each informative column draws a
// permutation of the faults in perm's memory (len K): permInto, which
// draws what tr.Perm(K) would.
func (t *Task) generate(inst *instance, tr, hr *rand.Rand, perm []int) {
	k, c := t.cfg.Faults, t.cfg
	inst.cells, inst.kinds = tasks.Resize(inst.cells, c.Questions), tasks.Resize(inst.kinds, c.Questions)
	inst.truth = hr.IntN(k)
	for q := range inst.cells {
		col := tasks.Resize(inst.cells[q], k)
		u := tr.Float64()
		switch {
		case u < c.PUseless:
			inst.kinds[q] = useless
			for f := range col {
				col[f] = no
			}
		default:
			nYes := k / 2
			inst.kinds[q] = balanced
			if u < c.PUseless+c.PNarrow {
				inst.kinds[q], nYes = narrow, 1
			}
			permInto(tr, perm)
			for i, f := range perm {
				col[f] = no
				if i < nYes {
					col[f] = yes
				}
			}
			for f := range col {
				if tr.Float64() < c.PUnknown {
					col[f] = unk
				}
			}
		}
		inst.cells[q] = col
	}
}

// permInto writes into p the permutation r.Perm(len(p)) would return,
// drawing the same numbers: the identity, shuffled by r.Shuffle with the
// same swaps (TestPermIntoMatchesPerm).
func permInto(r *rand.Rand, p []int) {
	for i := range p {
		p[i] = i
	}
	r.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
}

// lik is the likelihood of reply v to question q under fault f: replies are
// the table's cells, so 1 if they match and 0 otherwise.
func (inst *instance) lik(q int) func(f, v int) float64 {
	return func(f, v int) float64 {
		if inst.cells[q][f] == v {
			return 1
		}
		return 0
	}
}

package mediq

import (
	"fmt"
	"math/rand/v2"

	"arew/tasks"
)

// Instance streams: each component draws from its own generator.
const (
	streamOptions = 1
	streamFacts   = 2
	streamKnown   = 3
	streamInitial = 4
)

// patient is one MediQ case: four answer options (diagnoses, in shuffled
// order), which of them is correct, the patient's atomic facts (a value for
// every finding), which facts the patient can report, and the facts revealed
// in the prompt.
type patient struct {
	options [4]int // diagnosis of options A–D
	truth   int    // index of the correct option
	values  []int  // values[f]: the patient's value of finding f
	known   []bool // known[f]: the patient can answer about f
	initial []int  // findings revealed in the prompt
}

func (t *Task) patient(split tasks.Split, index int) (*patient, error) {
	var rngs [4]*rand.Rand
	for i, s := range []uint64{streamOptions, streamFacts, streamKnown, streamInitial} {
		r, err := tasks.InstanceRNG(t.cfg.Seed, split, index, s)
		if err != nil {
			return nil, fmt.Errorf("mediq patient: %w", err)
		}
		rngs[i] = r
	}
	or, fr, kr, ir := rngs[0], rngs[1], rngs[2], rngs[3]
	p := &patient{}
	// Four distinct diagnoses in random order; the correct one is uniform
	// among them, so neither an option letter nor a diagnosis's identity
	// predicts the answer.
	perm := or.Perm(t.cfg.Diagnoses)
	copy(p.options[:], perm[:4])
	p.truth = or.IntN(4)
	dx := p.options[p.truth]
	nf := t.cfg.Findings
	p.values, p.known = make([]int, nf), make([]bool, nf)
	for f := range nf {
		p.values[f] = sample(t.kb.findings[f].lik[dx], fr.Float64())
		p.known[f] = kr.Float64() >= t.pUnknown(p.options, f)
	}
	// The initial facts are drawn independently of the diagnosis and of the
	// values, so the likelihood of what the prompt shows is just P(value).
	p.initial = ir.Perm(nf)[:t.cfg.InitialFacts]
	return p, nil
}

// sample draws an index from the distribution p with a uniform u in [0, 1);
// if rounding lets u run past the end, the last index of positive mass.
func sample(p []float64, u float64) int {
	last := 0
	for v, x := range p {
		if x > 0 {
			last = v
		}
		if u < x {
			return v
		}
		u -= x
	}
	return last
}

// pertinent reports whether finding f's likelihood differs between the
// diagnoses of the options.
func (t *Task) pertinent(options [4]int, f int) bool {
	lik := t.kb.findings[f].lik
	for _, d := range options[1:] {
		for v, x := range lik[d] {
			if x != lik[options[0]][v] {
				return true
			}
		}
	}
	return false
}

// pUnknown is the probability that the patient cannot answer about f.
func (t *Task) pUnknown(options [4]int, f int) float64 {
	if t.pertinent(options, f) {
		return t.cfg.PUnknown
	}
	return t.cfg.PUnknownOther
}

package mediq

import (
	"math/rand/v2"
)

// kbStream is the generator stream of the knowledge base (instances use
// their own streams through tasks.InstanceRNG).
const kbStream = 0x6b62

// finding is one atomic fact a patient can be asked about. A binary finding
// takes the values absent (0) / present (1); a graded one normal (0) / low
// (1) / high (2). Value 0 is the normal one.
type finding struct {
	graded bool
	// lik[d][v] is P(value v | diagnosis d).
	lik [][]float64
}

func (f *finding) values() int {
	if f.graded {
		return 3
	}
	return 2
}

// kb is the clinical knowledge base: diagnoses and findings with
// per-diagnosis likelihoods. It is generated once from the task seed and
// shared by every patient (train and test alike), as medical knowledge is:
// what differs between instances is the patient.
type kb struct {
	findings []finding
	// hallmarks[d] lists the findings that are abnormal in diagnosis d.
	hallmarks [][]int
}

// newKB draws the knowledge base. Every diagnosis gets cfg.Hallmarks
// distinct abnormal findings, dealt from shuffled copies of the finding list
// so that each finding is the hallmark of about D·H/F diagnoses. Under a
// diagnosis where finding f is a hallmark with abnormal value a, P(a) is its
// sensitivity s ~ U[SensMin, SensMax]; otherwise each abnormal value has the
// finding's false rate e_f ~ U[FalseMin, FalseMax] (split evenly over the two
// abnormal values of a graded finding); the normal value takes the rest.
func newKB(cfg Config) *kb {
	rng := rand.New(rand.NewPCG(cfg.Seed, kbStream))
	nf, nd := cfg.Findings, cfg.Diagnoses
	k := &kb{findings: make([]finding, nf), hallmarks: make([][]int, nd)}
	for f := range k.findings {
		k.findings[f].graded = rng.Float64() < cfg.PGraded
	}
	// abnormal[f][d]: the abnormal value of f under d, 0 if none.
	abnormal := make([][]int, nf)
	for f := range abnormal {
		abnormal[f] = make([]int, nd)
	}
	var deck []int
	for d := range nd {
		for len(k.hallmarks[d]) < cfg.Hallmarks {
			if len(deck) == 0 {
				deck = rng.Perm(nf)
			}
			f := deck[len(deck)-1]
			deck = deck[:len(deck)-1]
			if abnormal[f][d] != 0 {
				continue // already this diagnosis's hallmark
			}
			a := 1
			if k.findings[f].graded {
				a = 1 + rng.IntN(2)
			}
			abnormal[f][d] = a
			k.hallmarks[d] = append(k.hallmarks[d], f)
		}
	}
	for f := range k.findings {
		fd := &k.findings[f]
		e := cfg.FalseMin + rng.Float64()*(cfg.FalseMax-cfg.FalseMin)
		fd.lik = make([][]float64, nd)
		for d := range nd {
			p := make([]float64, fd.values())
			for v := 1; v < len(p); v++ {
				p[v] = e / float64(len(p)-1)
			}
			if a := abnormal[f][d]; a != 0 {
				p[a] = cfg.SensMin + rng.Float64()*(cfg.SensMax-cfg.SensMin)
			}
			p[0] = 1
			for v := 1; v < len(p); v++ {
				p[0] -= p[v]
			}
			p[0] = max(p[0], 0) // SensMax + FalseMax/2 = 1 may round below 0
			fd.lik[d] = p
		}
	}
	return k
}

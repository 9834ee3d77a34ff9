package pe

import (
	"math"
	"math/rand/v2"
)

// samplePrior draws one weight vector from the prior: K ~ U{LikedMin..LikedMax}
// liked attributes chosen uniformly get U(LikedLow, 1), the others
// U(0, OtherHigh).
func samplePrior(c Config, rng *rand.Rand) []float64 {
	w := make([]float64, c.Dims)
	for k := range w {
		w[k] = c.OtherHigh * rng.Float64()
	}
	liked := c.LikedMin + rng.IntN(c.LikedMax-c.LikedMin+1)
	for _, k := range rng.Perm(c.Dims)[:liked] {
		w[k] = c.LikedLow + (1-c.LikedLow)*rng.Float64()
	}
	// A zero vector has no direction; it has probability zero but a config
	// with LikedLow = OtherHigh = 0 could make it: nudge it to be safe.
	allZero := true
	for _, x := range w {
		allZero = allZero && x == 0
	}
	if allZero {
		w[rng.IntN(c.Dims)] = 1
	}
	return w
}

// particles is the hypothesis set H: N draws from the prior, made once per
// task from the task seed, stored flat with their unit vectors and the sum
// of the unit vectors (for the prior mean).
type particles struct {
	n, d        int
	w, u        []float64 // n×d
	sumUnit     []float64
	allPositive bool // every weight > 0
}

// particleStream is the generator stream of the particle set; instance
// streams are small integers, so the two never meet.
const particleStream = 0x5045_5041_5254 // "PEPART"

func newParticles(c Config) *particles {
	rng := rand.New(rand.NewPCG(c.Seed, particleStream))
	ws := make([][]float64, c.Particles)
	for i := range ws {
		ws[i] = samplePrior(c, rng)
	}
	return particlesFrom(c.Dims, ws)
}

// particlesFrom stores the given weight vectors (each of length d, non-zero).
func particlesFrom(d int, ws [][]float64) *particles {
	p := &particles{n: len(ws), d: d, sumUnit: make([]float64, d), allPositive: true}
	p.w = make([]float64, 0, p.n*d)
	p.u = make([]float64, 0, p.n*d)
	for _, w := range ws {
		for _, x := range w {
			p.allPositive = p.allPositive && x > 0
		}
		u := unit(w)
		p.w = append(p.w, w...)
		p.u = append(p.u, u...)
		for k, x := range u {
			p.sumUnit[k] += x
		}
	}
	return p
}

// at returns particle i's weights.
func (p *particles) at(i int) []float64 { return p.w[i*p.d : (i+1)*p.d] }

// hypotheses is an episode's view of H with the index of w* in it. The prior
// on H is uniform and w* is one of its members, so the exact Bayes
// posterior after a list of (query, reply) is uniform on the hypotheses that
// give every one of those replies (the consistent set C); w* is always in C,
// so C is never empty.
type hypotheses struct {
	p     *particles
	truth []float64 // = p.at(truthIdx)
}

func (h *hypotheses) size() int { return h.p.n }

// at returns hypothesis i's weights.
func (h *hypotheses) at(i int) []float64 { return h.p.w[i*h.p.d : (i+1)*h.p.d] }

// unitAt returns hypothesis i's unit vector.
func (h *hypotheses) unitAt(i int) []float64 { return h.p.u[i*h.p.d : (i+1)*h.p.d] }

// all lists every hypothesis index (the prior's support).
func (h *hypotheses) all() []int32 {
	out := make([]int32, h.size())
	for i := range out {
		out[i] = int32(i)
	}
	return out
}

// filter keeps the hypotheses of set that answer q with r: one exact Bayes
// step. It returns a new slice.
func (h *hypotheses) filter(set []int32, q Query, r Reply, table [][]int, tol float64) []int32 {
	out := make([]int32, 0, len(set))
	for _, i := range set {
		if reply(h.at(int(i)), q, table, tol) == r {
			out = append(out, i)
		}
	}
	return out
}

// meanDirection is the posterior mean of the unit vectors of set (uniform
// weights): the direction a posterior points to. For the whole of H it is
// the prior mean, computed from the cached sum.
func (h *hypotheses) meanDirection(set []int32) []float64 {
	m := make([]float64, h.p.d)
	if len(set) == h.size() {
		for k := range m {
			m[k] = h.p.sumUnit[k] / float64(len(set))
		}
		return m
	}
	for _, i := range set {
		for k, x := range h.unitAt(int(i)) {
			m[k] += x
		}
	}
	for k := range m {
		m[k] /= float64(len(set))
	}
	return m
}

// psi is the belief potential of a posterior (uniform on set): the cosine of
// its mean direction to w*.
func (h *hypotheses) psi(set []int32) float64 {
	return cosine(h.meanDirection(set), h.truth)
}

// diffTerm is one non-zero score difference of a query: attribute k,
// |d_k|, and the sign of d_k.
type diffTerm struct {
	k   int
	abs float64
	pos bool
}

// queryDiffs lists the queries whose reply can vary over the hypotheses,
// with their non-zero differences x_A − x_B on the focus set in focus order:
// the inner loop of replyEntropies without the zero terms.
// terms[start[j]:start[j+1]] belong to query idx[j].
//
// When every hypothesis has all weights positive (checked, not assumed), a
// dominated query gets the same reply from all of them (see reply), so its
// entropy is exactly 0 and it is left out: in PE-G about nine queries in ten.
type queryDiffs struct {
	n     int // number of canonical queries
	idx   []int
	terms []diffTerm
	start []int
}

func newQueryDiffs(qs *querySpace, table [][]int, skipDominated bool) *queryDiffs {
	qd := &queryDiffs{n: qs.size()}
	for f, focus := range qs.focusSets {
		for p, pr := range qs.pairs {
			q := f*len(qs.pairs) + p
			if skipDominated && dominated(qs.query(q), table) {
				continue
			}
			qd.idx = append(qd.idx, q)
			qd.start = append(qd.start, len(qd.terms))
			for _, k := range focus {
				if d := table[pr[0]][k] - table[pr[1]][k]; d != 0 {
					qd.terms = append(qd.terms, diffTerm{k: k, abs: float64(max(d, -d)), pos: d > 0})
				}
			}
		}
	}
	qd.start = append(qd.start, len(qd.terms))
	return qd
}

// allPositive reports whether every weight of every hypothesis is > 0.
func (h *hypotheses) allPositive() bool { return h.p.allPositive }

// replyEntropies returns, for every canonical query, the entropy (nats) of
// its reply under the posterior uniform on set. Its sums are replyRows's,
// term by term in the same order (zero terms add nothing), so each
// hypothesis's reply is exactly the one reply gives.
func (h *hypotheses) replyEntropies(set []int32, qd *queryDiffs, tol float64) []float64 {
	nq := len(qd.idx)
	counts := make([][3]int, nq)
	for _, i := range set {
		w := h.at(int(i))
		for j := 0; j < nq; j++ {
			var pos, neg float64
			for _, t := range qd.terms[qd.start[j]:qd.start[j+1]] {
				if t.pos {
					pos += w[t.k] * t.abs
				} else {
					neg += w[t.k] * t.abs
				}
			}
			band := tol * (pos + neg)
			switch {
			case pos-neg > band:
				counts[j][2]++
			case neg-pos > band:
				counts[j][0]++
			default:
				counts[j][1]++
			}
		}
	}
	ent := make([]float64, qd.n) // queries left out have entropy 0
	n := float64(len(set))
	for j := range counts {
		e := 0.0
		for _, c := range counts[j] {
			if c > 0 {
				pr := float64(c) / n
				e -= pr * math.Log(pr)
			}
		}
		ent[qd.idx[j]] = e
	}
	return ent
}

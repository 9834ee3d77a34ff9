package pe

import "math"

// Reply is the user's answer to a query "is movie A better than movie B on
// the focus set?", from A's side.
type Reply int8

const (
	No    Reply = -1
	Equal Reply = 0
	Yes   Reply = 1
)

func (r Reply) String() string {
	switch r {
	case Yes:
		return "yes"
	case No:
		return "no"
	}
	return "equal"
}

// Query is a focus set (sorted attribute indices) and a pair of movies in
// the order asked: the reply says whether A beats B.
type Query struct {
	Focus []int
	A, B  int
}

// querySpace enumerates the distinct queries of a setting in a canonical
// order: focus sets in lexicographic order, then pairs i < j. The canonical
// index of a query ignores the order of A and B (a reversed pair asks the
// same question).
type querySpace struct {
	focusSets [][]int
	focusIdx  map[uint32]int // bitmask of a focus set → its index
	pairs     [][2]int
	movies    int
}

func newQuerySpace(dims, focus, movies int) *querySpace {
	qs := &querySpace{focusIdx: map[uint32]int{}, movies: movies}
	var rec func(start int, cur []int)
	rec = func(start int, cur []int) {
		if len(cur) == focus {
			f := append([]int(nil), cur...)
			qs.focusIdx[mask(f)] = len(qs.focusSets)
			qs.focusSets = append(qs.focusSets, f)
			return
		}
		for k := start; k < dims; k++ {
			rec(k+1, append(cur, k))
		}
	}
	rec(0, nil)
	for i := 0; i < movies; i++ {
		for j := i + 1; j < movies; j++ {
			qs.pairs = append(qs.pairs, [2]int{i, j})
		}
	}
	return qs
}

func mask(focus []int) uint32 {
	var m uint32
	for _, k := range focus {
		m |= 1 << uint(k)
	}
	return m
}

// size is the number of distinct queries.
func (qs *querySpace) size() int { return len(qs.focusSets) * len(qs.pairs) }

// pairIndex is the index of the unordered pair {i, j}, i ≠ j.
func (qs *querySpace) pairIndex(i, j int) int {
	if i > j {
		i, j = j, i
	}
	// Pairs (0,1..M−1), (1,2..M−1), …: rows before i hold Σ_{r<i} (M−1−r).
	return i*(2*qs.movies-i-1)/2 + (j - i - 1)
}

// index is the canonical index of q and whether A > B (the canonical
// orientation is the reverse of the asked one). The focus set must be one of
// the space's (the parser guarantees it).
func (qs *querySpace) index(q Query) (idx int, flipped bool) {
	f := qs.focusIdx[mask(q.Focus)]
	return f*len(qs.pairs) + qs.pairIndex(q.A, q.B), q.A > q.B
}

// query is the canonical query with the given index.
func (qs *querySpace) query(idx int) Query {
	p := qs.pairs[idx%len(qs.pairs)]
	return Query{Focus: qs.focusSets[idx/len(qs.pairs)], A: p[0], B: p[1]}
}

// reply is the answer of weights w ≥ 0 to query q on the movie table. With
// d = x_A − x_B on the focus set S, the favourable and unfavourable
// contributions are
//
//	P = Σ_{k∈S, d_k>0} w_k d_k,   N = Σ_{k∈S, d_k<0} w_k |d_k|
//
// and the reply is Yes if P − N > tol·(P + N), No if N − P > tol·(P + N), and
// Equal otherwise: the two movies are equally good when their advantages
// balance within a relative tolerance (an identical pair, P = N = 0, is
// Equal). Being relative and scale-free, the band keeps the spec's premise
// exact: a dominated pair (N = 0 or P = 0) is answered the same by every w
// with positive weights, so its reply carries no information. Every reply in
// the package (simulator, particles, policies) goes through this function.
func reply(w []float64, q Query, table [][]int, tol float64) Reply {
	return replyRows(w, q.Focus, table[q.A], table[q.B], tol)
}

func replyRows(w []float64, focus []int, xa, xb []int, tol float64) Reply {
	var pos, neg float64
	for _, k := range focus {
		switch d := xa[k] - xb[k]; {
		case d > 0:
			pos += w[k] * float64(d)
		case d < 0:
			neg += w[k] * float64(-d)
		}
	}
	band := tol * (pos + neg)
	switch {
	case pos-neg > band:
		return Yes
	case neg-pos > band:
		return No
	}
	return Equal
}

// dominated reports whether one movie is at least as good as the other on
// every focus attribute (d = x_A − x_B ≥ 0 on S, or ≤ 0): then every
// non-negative w gives the same sign, and the reply carries no information
// about the direction of w. Integer scores need no tolerance. Unlike the
// released code's strict test (|d_k| ≥ 1e−5 for all k), a zero component does
// not make a pair informative here: d = (2, 0, 0) is answered Yes (or Equal)
// by every w ≥ 0.
func dominated(q Query, table [][]int) bool {
	pos, neg := false, false
	for _, k := range q.Focus {
		d := table[q.A][k] - table[q.B][k]
		pos = pos || d > 0
		neg = neg || d < 0
	}
	return !(pos && neg)
}

// cosine of two vectors; 0 when either is zero (never the case for valid
// guesses and prior draws).
func cosine(a, b []float64) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += a[i] * b[i]
		aa += a[i] * a[i]
		bb += b[i] * b[i]
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	return ab / math.Sqrt(aa*bb)
}

// unit returns w/‖w‖.
func unit(w []float64) []float64 {
	n := 0.0
	for _, x := range w {
		n += x * x
	}
	n = math.Sqrt(n)
	out := make([]float64, len(w))
	for i, x := range w {
		out[i] = x / n
	}
	return out
}

// toFloat converts a guess to weights.
func toFloat(g []int) []float64 {
	out := make([]float64, len(g))
	for i, x := range g {
		out[i] = float64(x)
	}
	return out
}

// quantize maps a direction m ≥ 0 to the guess in 0..levels−1 closest in
// cosine among its roundings (see roundings). Ties keep the smaller scale.
func quantize(m []float64, levels int) []int {
	var best []int
	bestCos := -1.0
	for _, g := range roundings(m, levels) {
		if c := cosine(toFloat(g), m); c > bestCos {
			best, bestCos = g, c
		}
	}
	if best == nil { // m is zero: the flat guess
		best = make([]int, len(m))
		for i := range best {
			best[i] = 1
		}
	}
	return best
}

// roundings are the non-zero guesses round(m/max(m)·top), top = 1..levels−1:
// a guess only has a direction, so its scale is free, and trying every scale
// avoids losing small components to a coarse one.
func roundings(m []float64, levels int) [][]int {
	hi := 0.0
	for _, x := range m {
		hi = math.Max(hi, x)
	}
	if hi <= 0 {
		return nil
	}
	var out [][]int
	for top := 1; top < levels; top++ {
		g := make([]int, len(m))
		nz := false
		for i, x := range m {
			g[i] = int(math.Round(x / hi * float64(top)))
			nz = nz || g[i] > 0
		}
		if nz {
			out = append(out, g)
		}
	}
	return out
}

// sameDirection reports whether two guesses point the same way (a guess is a
// direction: 1 1 0 and 2 2 0 state the same belief).
func sameDirection(a, b []int) bool {
	return cosine(toFloat(a), toFloat(b)) > 1-1e-12
}

package tasks

import (
	"fmt"
	"math"
)

// Helpers shared by the tasks whose hypothesis space is a small finite set
// (MediQ's four options, FloDial's K faults): beliefs stated as one level
// token per hypothesis, the consistent set C of hypotheses the evidence has
// not ruled out, the consistent-set critiques, expected
// information gain, and the per-episode belief measures.

// LevelFormat is a belief written as one level token per hypothesis: level
// tokens are First, First+1, …, First+Levels−1 (the words "0", "1", …), and
// the stated belief is the levels normalised to sum to 1. One small token per
// hypothesis, whose position names the hypothesis, is a format a small model
// can emit and compare; Levels ≥ 2.
type LevelFormat struct {
	First  Token
	Levels int
}

// Parse reads exactly n level tokens. Any other length, a token outside the
// level range, or all levels zero (no mass anywhere) is an error: the caller
// judges the turn malformed.
func (f LevelFormat) Parse(toks []Token, n int) (Belief, error) {
	b, bad := f.parse(nil, toks, n)
	switch {
	case bad == badLength:
		return nil, fmt.Errorf("belief needs %d level tokens, got %d", n, len(toks))
	case bad >= 0:
		return nil, fmt.Errorf("token %d at position %d is not a level", toks[bad], bad)
	case bad == noMass:
		return nil, fmt.Errorf("belief: %w", b.Normalize())
	}
	return b, nil
}

// ParseInto is Parse for a caller that needs no reason: the belief Parse
// returns, written into dst's memory when it has room, or false where Parse
// returns an error (TestParseIntoMatchesParse). It makes no error value.
func (f LevelFormat) ParseInto(dst Belief, toks []Token, n int) (Belief, bool) {
	if b, bad := f.parse(dst, toks, n); bad == parsed {
		return b, true
	}
	return nil, false
}

// What parse found wrong, beside the position of a token that is not a
// level (≥ 0).
const (
	parsed    = -1
	badLength = -2
	noMass    = -3 // every level 0: the unnormalised levels are returned
)

// parse is Parse's one loop, in dst's memory: the normalised belief and
// parsed, or what is wrong. Levels are whole numbers ≥ 0, so normalising
// fails only without mass, which is checked first.
func (f LevelFormat) parse(dst Belief, toks []Token, n int) (Belief, int) {
	if len(toks) != n {
		return nil, badLength
	}
	b, mass := Resize(dst, n), false
	for i, t := range toks {
		l := int(t) - int(f.First)
		if l < 0 || l >= f.Levels {
			return nil, i
		}
		b[i] = float64(l)
		mass = mass || l > 0
	}
	if !mass {
		return b, noMass
	}
	if err := b.Normalize(); err != nil {
		panic("tasks: levels with mass did not normalise: " + err.Error())
	}
	return b, parsed
}

// Encode writes levels (each in [0, Levels)) as tokens; a level out of range
// is a programmer bug and panics.
func (f LevelFormat) Encode(levels []int) []Token {
	out := make([]Token, len(levels))
	for i, l := range levels {
		if l < 0 || l >= f.Levels {
			panic(fmt.Sprintf("tasks: level %d outside [0, %d)", l, f.Levels))
		}
		out[i] = f.First + Token(l)
	}
	return out
}

// Quantize maps a belief to levels: the largest entry gets Levels−1 and the
// others round(b_i/max·(Levels−1)), so ratios to the top are kept as well as
// the grid allows and a hypothesis with mass 0 stays at level 0.
func (f LevelFormat) Quantize(b Belief) []int {
	top := 0.0
	for _, x := range b {
		top = math.Max(top, x)
	}
	out := make([]int, len(b))
	if top <= 0 {
		return out
	}
	for i, x := range b {
		out[i] = int(math.Round(x / top * float64(f.Levels-1)))
	}
	return out
}

// WithTop returns levels with hypothesis top raised to the highest level and
// every other hypothesis that shared it lowered by one, so the argmax is
// unique (the discrete tasks score a final answer only when it is).
func (f LevelFormat) WithTop(levels []int, top int) []int {
	out := append([]int(nil), levels...)
	hi := f.Levels - 1
	for i := range out {
		if i != top && out[i] >= hi {
			out[i] = hi - 1
		}
	}
	out[top] = hi
	return out
}

// OneHot is the levels of a belief entirely on hypothesis h.
func (f LevelFormat) OneHot(n, h int) []int {
	out := make([]int, n)
	out[h] = f.Levels - 1
	return out
}

// TopSet lists the hypotheses whose mass equals the largest (within 1e-12).
func TopSet(b Belief) []int {
	top := topMass(b)
	var out []int
	for i, x := range b {
		if atTop(x, top) {
			out = append(out, i)
		}
	}
	return out
}

// topMass is b's largest entry; atTop says whether x ties it (within
// rounding), the membership test of TopSet.
func topMass(b Belief) float64 {
	top := math.Inf(-1)
	for _, x := range b {
		top = math.Max(top, x)
	}
	return top
}

func atTop(x, top float64) bool { return x >= top-1e-12 }

// Plausible is the consistent set C: the hypotheses whose posterior mass is
// positive and at least ratio times the largest. With deterministic replies
// (FloDial) the posterior is flat on the hypotheses that agree with every
// reply, so any ratio in (0, 1] gives exactly those; with noisy replies
// (MediQ) ratio is the odds below which a hypothesis counts as ruled out.
func Plausible(b Belief, ratio float64) []bool { return PlausibleInto(nil, b, ratio) }

// PlausibleInto is Plausible written into dst's memory when it has room.
func PlausibleInto(dst []bool, b Belief, ratio float64) []bool {
	top := 0.0
	for _, x := range b {
		top = math.Max(top, x)
	}
	out := Resize(dst, len(b))
	for i, x := range b {
		out[i] = x > 0 && x >= ratio*top
	}
	return out
}

// Count is the number of true entries.
func Count(set []bool) int {
	n := 0
	for _, in := range set {
		if in {
			n++
		}
	}
	return n
}

// Eliminated reports whether some hypothesis in before is not in after.
func Eliminated(before, after []bool) bool {
	for i, in := range before {
		if in && !after[i] {
			return true
		}
	}
	return false
}

// Splits reports whether a query can shrink the consistent set: some reply v
// that a hypothesis in C could produce (lik(h, v) > 0) would, after an exact
// Bayes update of b, leave a member of C out. lik(h, v) is P(reply v |
// hypothesis h) for v in [0, nReplies). With deterministic replies this is
// "at least two distinct answers among C".
func Splits(b Belief, ratio float64, nReplies int, lik func(h, v int) float64) bool {
	return SplitsInto(b, ratio, nReplies, lik, &Scratch{})
}

// Scratch is the memory SplitsInto works in, kept by a caller that asks
// again and again (an episode, every query turn). The zero value is ready.
type Scratch struct {
	c, after []bool
	nb       Belief
}

// SplitsInto is Splits computing in s's memory (TestSplitsIntoMatchesSplits).
func SplitsInto(b Belief, ratio float64, nReplies int, lik func(h, v int) float64, s *Scratch) bool {
	c := PlausibleInto(s.c, b, ratio)
	s.c = c
	for v := 0; v < nReplies; v++ {
		possible := false
		for h, in := range c {
			if in && lik(h, v) > 0 {
				possible = true
				break
			}
		}
		if !possible {
			continue
		}
		nb, err := b.UpdateInto(s.nb, func(h int) float64 { return lik(h, v) })
		if err != nil {
			continue // v is impossible under every hypothesis with mass
		}
		s.nb = nb
		s.after = PlausibleInto(s.after, nb, ratio)
		if Eliminated(c, s.after) {
			return true
		}
	}
	return false
}

// MutualInformation is the expected information gain, in nats, about the
// hypothesis from a query whose reply v has likelihood lik(h, v):
// I(H;V) = H(V) − Σ_h b_h·H(V | h). The strong policies ask the query that
// maximises it.
func MutualInformation(b Belief, nReplies int, lik func(h, v int) float64) float64 {
	hv, cond := 0.0, 0.0
	for v := 0; v < nReplies; v++ {
		pv := 0.0
		for h, bh := range b {
			p := lik(h, v)
			pv += bh * p
			if p > 0 {
				cond -= bh * p * math.Log(p)
			}
		}
		if pv > 0 {
			hv -= pv * math.Log(pv)
		}
	}
	return math.Max(0, hv-cond)
}

// ConsistentAS is the consistent-set critique of a query (the FloDial
// prototype's rule): a malformed query is −1; once |C| ≤ 1 there is nothing
// left to learn and every other query is 0; a repeat, or a query that cannot
// split C, is −1; a new query that splits C is +1.
func ConsistentAS(sizeC int, malformed, repeat, splits bool) int8 {
	switch {
	case malformed:
		return -1
	case sizeC <= 1:
		return 0
	case repeat || !splits:
		return -1
	}
	return 1
}

// ConsistentBT is the consistent-set critique of a stated belief: −1 if it is
// malformed or puts its top (any hypothesis tied for the largest mass) on a
// hypothesis outside C; +1 if its top lies in C after a reply that eliminated
// something; else 0. A stale belief that the evidence has ruled out earns −1
// every round, so freezing is no exploit.
func ConsistentBT(b Belief, malformed bool, c []bool, eliminated bool) int8 {
	if malformed {
		return -1
	}
	top := topMass(b) // TopSet(b), without making the list
	for h, x := range b {
		if atTop(x, top) && !c[h] {
			return -1
		}
	}
	if eliminated {
		return 1
	}
	return 0
}

// AppendPerHypothesisBT judges a stated belief one hypothesis at a time
// against the consistent set C: the level of a hypothesis in C earns +1 if
// it is the belief's top level (the exact posterior is flat on C) and −1
// if it is lower; the level of a hypothesis outside C earns +1 if it is 0
// (the evidence ruled it out) and −1 if it still carries weight. levels
// are the stated levels, one per hypothesis (len(levels) = len(c)). A
// belief that is half right earns +1 on the half it gets right: unlike
// ConsistentBT, which is all or nothing over the top set. It appends the
// len(levels) critiques to dst and returns the extended slice, as append
// does.
func AppendPerHypothesisBT(dst []int8, levels []int, c []bool) []int8 {
	top := 0
	for _, l := range levels {
		top = max(top, l)
	}
	for h, l := range levels {
		right := l == top
		if !c[h] {
			right = l == 0
		}
		z := int8(-1)
		if right {
			z = 1
		}
		dst = append(dst, z)
	}
	return dst
}

// MassBT is a turn-level critique of a stated belief that reads no hidden
// truth, only the consistent set C (which the replies and the table fix):
// the sign of the change in the belief's mass on C. With m(b) = Σ_{h∈C} b(h)
// on normalised beliefs and prev the last valid stated belief (flat before
// the first), both measured on the C after this turn's reply:
//
//	−1 if malformed;
//	+1 if m(b) = 1 (every bit of the belief on C) or m(b) > m(prev);
//	−1 if m(b) < m(prev), or m(b) = m(prev) < 1 after a reply that
//	   eliminated something (a stale belief);
//	 0 otherwise (nothing eliminated, nothing moved, not yet all on C).
//
// One sign per belief turn, as cheap as the paper's rule. Equalities hold to
// 1e-9.
func MassBT(b, prev Belief, malformed bool, c []bool, eliminated bool) int8 {
	if malformed {
		return -1
	}
	var m, p float64
	for h, in := range c {
		if in {
			m += b[h]
			p += prev[h]
		}
	}
	switch {
	case m >= 1-1e-9 || m > p+1e-9:
		return 1
	case m < p-1e-9 || eliminated:
		return -1
	}
	return 0
}

// MajorityBT is the turn-level summary of per-hypothesis critiques (as
// AppendPerHypothesisBT makes them): the sign of their sum, 0 on a tie.
func MajorityBT(zs []int8) int8 {
	sum := 0
	for _, z := range zs {
		sum += int(z)
	}
	switch {
	case sum > 0:
		return 1
	case sum < 0:
		return -1
	}
	return 0
}

// BeliefGains are the BT measures of one episode from the potentials
// Ψ(b_0), Ψ(b_1), …: the BT proxy (mean per-round change Ψ(b_t) − Ψ(b_{t−1}))
// and C_BT (sum of the positive changes). NaN without rounds.
func BeliefGains(psi0 float64, psis []float64) (proxy, cbt float64) {
	if len(psis) == 0 {
		return math.NaN(), math.NaN()
	}
	prev, sum := psi0, 0.0
	for _, p := range psis {
		sum += p - prev
		cbt += math.Max(0, p-prev)
		prev = p
	}
	return sum / float64(len(psis)), cbt
}

// ASProxy is the fraction of AS steps with critique +1 (NaN without AS steps).
func ASProxy(steps []Step) float64 {
	n, pos := 0, 0
	for _, s := range steps {
		if s.Kind != AS {
			continue
		}
		n++
		if s.Z > 0 {
			pos++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return float64(pos) / float64(n)
}

package optim

// scratch hands out the float64 work slices of one objective, kept from
// one call to the next: the graph nodes (graph.go) call their objective on
// every forward and backward run with slices of the same length, and
// allocating them afresh cost ~4 MB per PPO update of the small preset. A
// nil *scratch allocates, as the exported functions do, whose results the
// caller keeps. The values are the same either way: every slice comes back
// zeroed, as make gives it.
type scratch struct {
	bufs [][]float64
	next int
}

// reset makes every slice available again: the objective's previous
// results are overwritten by its next call.
func (s *scratch) reset() {
	if s != nil {
		s.next = 0
	}
}

// zeros returns a zeroed slice of n.
func (s *scratch) zeros(n int) []float64 {
	if s == nil {
		return make([]float64, n)
	}
	if s.next == len(s.bufs) {
		s.bufs = append(s.bufs, nil)
	}
	b := s.bufs[s.next]
	if cap(b) < n {
		b = make([]float64, n)
	} else {
		b = b[:n]
		clear(b)
	}
	s.bufs[s.next] = b
	s.next++
	return b
}

// Aggregator is Aggregate for float32 per-token values that reuses its work
// slices from call to call: for a metric aggregated every minibatch (the
// policy's entropy), where Aggregate of x widened to float64 allocated two
// slices of N.
type Aggregator struct{ s scratch }

// Aggregate32 is Aggregate's aggregate of x widened to float64, bitwise:
// the same weights and the same float64 sum in the same order.
func (g *Aggregator) Aggregate32(x []float32, b Packed, a Agg) (float64, error) {
	g.s.reset()
	x64 := g.s.zeros(len(x))
	for i, v := range x {
		x64[i] = float64(v)
	}
	if err := checkLens(b, "aggregate", []string{"loss"}, x64); err != nil {
		return 0, err
	}
	w, err := a.weights(&g.s, b)
	if err != nil {
		return 0, err
	}
	return dotMasked(w, x64), nil
}

package optim

// scratch hands out the float64 work slices of one objective, kept from
// one call to the next: the graph nodes (nodes.go) call their objective on
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

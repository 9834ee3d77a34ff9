package tasks

import (
	"fmt"
	"math"
)

// Belief is a probability vector over a finite hypothesis set.
type Belief []float64

// Uniform is the flat belief over n hypotheses.
func Uniform(n int) Belief {
	b := make(Belief, n)
	for i := range b {
		b[i] = 1 / float64(n)
	}
	return b
}

// Normalize rescales b to sum to 1. A belief with no positive mass (every
// hypothesis ruled out, or NaN) is an error: the caller decides what that
// means for its task.
func (b Belief) Normalize() error {
	s := 0.0
	for _, x := range b {
		if x < 0 || math.IsNaN(x) {
			return fmt.Errorf("belief has a negative or NaN entry %v", x)
		}
		s += x
	}
	if s <= 0 || math.IsInf(s, 0) {
		return fmt.Errorf("belief has total mass %v", s)
	}
	for i := range b {
		b[i] /= s
	}
	return nil
}

// Update is one exact Bayes step: b[h] ∝ b[h]·likelihood(h). It returns a new
// belief and leaves b unchanged.
func (b Belief) Update(likelihood func(h int) float64) (Belief, error) {
	return b.UpdateInto(nil, likelihood)
}

// UpdateInto is Update writing the new belief into dst's memory when it
// holds len(b) entries (dst must not overlap b).
func (b Belief) UpdateInto(dst Belief, likelihood func(h int) float64) (Belief, error) {
	nb := Resize(dst, len(b))
	for h := range b {
		nb[h] = b[h] * likelihood(h)
	}
	if err := nb.Normalize(); err != nil {
		return nil, fmt.Errorf("bayes update: %w", err)
	}
	return nb, nil
}

// Resize is s with length n, in s's memory if it has room, else a new
// zeroed slice: the memory reuse of the *Into helpers and of episodes that
// recycle theirs.
func Resize[S ~[]E, E any](s S, n int) S {
	if cap(s) < n {
		return make(S, n)
	}
	return s[:n]
}

// Argmax is the index of the largest entry and whether it is unique (the
// discrete tasks score an answer only when its top is unique).
func (b Belief) Argmax() (int, bool) {
	best, unique := -1, false
	for i, x := range b {
		switch {
		case best < 0 || x > b[best]:
			best, unique = i, true
		case x == b[best]:
			unique = false
		}
	}
	return best, unique
}

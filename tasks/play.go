package tasks

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Play runs policy on ep until the episode ends and returns its measures. It
// guards against a simulator that never ends: more than maxTurns turns is an
// error (pass the task's turn limit or a generous bound).
func Play(ep Episode, policy Policy, rng *rand.Rand, maxTurns int) (Measures, error) {
	for turns := 0; !ep.Done(); turns++ {
		if turns >= maxTurns {
			return Measures{}, fmt.Errorf("play %s: episode still running after %d turns", policy.Name(), maxTurns)
		}
		action, err := policy.Act(ep, rng)
		if err != nil {
			return Measures{}, fmt.Errorf("play %s: act: %w", policy.Name(), err)
		}
		if _, _, err := ep.Step(action); err != nil {
			return Measures{}, fmt.Errorf("play %s: step: %w", policy.Name(), err)
		}
	}
	return ep.Measures(), nil
}

// Summary averages Measures over episodes. Means skip NaN values (a task
// without beliefs has NaN BT measures); a mean over no values is NaN.
type Summary struct {
	Episodes  int
	Reward    float64
	Success   float64
	ASProxy   float64
	BTProxy   float64
	IAS       float64
	CBT       float64
	Evidence  float64
	Turns     float64
	Malformed float64
	Repeats   float64
	// Extra are the means of the episodes' Extra counts, each over the
	// episodes that define it (NaN values skipped); nil when none has any.
	Extra map[string]float64
}

// Summarize averages a list of per-episode measures.
func Summarize(ms []Measures) Summary {
	s := Summary{Episodes: len(ms)}
	mean := func(get func(Measures) float64) float64 {
		sum, n := 0.0, 0
		for _, m := range ms {
			if x := get(m); !math.IsNaN(x) {
				sum += x
				n++
			}
		}
		if n == 0 {
			return math.NaN()
		}
		return sum / float64(n)
	}
	s.Reward = mean(func(m Measures) float64 { return m.Reward })
	s.Success = mean(func(m Measures) float64 { return b2f(m.Success) })
	s.ASProxy = mean(func(m Measures) float64 { return m.ASProxy })
	s.BTProxy = mean(func(m Measures) float64 { return m.BTProxy })
	s.IAS = mean(func(m Measures) float64 { return m.IAS })
	s.CBT = mean(func(m Measures) float64 { return m.CBT })
	s.Evidence = mean(func(m Measures) float64 { return m.Evidence })
	s.Turns = mean(func(m Measures) float64 { return float64(m.Turns) })
	s.Malformed = mean(func(m Measures) float64 { return float64(m.Malformed) })
	s.Repeats = mean(func(m Measures) float64 { return float64(m.Repeats) })
	for _, m := range ms {
		for k := range m.Extra {
			if _, done := s.Extra[k]; !done {
				if s.Extra == nil {
					s.Extra = map[string]float64{}
				}
				s.Extra[k] = mean(func(m Measures) float64 {
					if x, ok := m.Extra[k]; ok {
						return x
					}
					return math.NaN()
				})
			}
		}
	}
	return s
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Evaluate plays policy on the first n instances of split. Instance i is
// played with its own generator derived from (seed, i), so the result does
// not depend on the order in which episodes run.
func Evaluate(task Task, policy Policy, split Split, n int, seed uint64, maxTurns int) (Summary, error) {
	ms := make([]Measures, 0, n)
	for i := 0; i < n; i++ {
		ep, err := task.NewEpisode(split, i)
		if err != nil {
			return Summary{}, fmt.Errorf("evaluate %s: %w", task.Name(), err)
		}
		m, err := Play(ep, policy, rand.New(rand.NewPCG(seed, uint64(i))), maxTurns)
		if err != nil {
			return Summary{}, fmt.Errorf("evaluate %s instance %d: %w", task.Name(), i, err)
		}
		ms = append(ms, m)
	}
	return Summarize(ms), nil
}

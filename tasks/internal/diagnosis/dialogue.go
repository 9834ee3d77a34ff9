// Package diagnosis holds what the two diagnosis dialogues, FloDial
// (tasks/flodial) and MediQ (tasks/mediq), share: rounds of one query and
// one stated belief over K hypotheses in a tasks.LevelFormat, their
// scripted policies (Dialogue.Scripted), their best constant answer and
// their measures.
package diagnosis

import (
	"fmt"
	"sync"

	"arew/tasks"
)

// Dialogue describes a diagnosis task to the shared parts; the task makes
// one in New and keeps it (it memoises the best constant answer).
type Dialogue struct {
	Name       string // prefixes the policies' errors: "flodial", "mediq"
	Hypotheses int    // K, the faults or options a belief weighs
	Levels     tasks.LevelFormat
	// Truth is the true hypothesis of instance index of split.
	Truth func(split tasks.Split, index int) (int, error)
	// Answer names the constant answer on hypothesis h: "fault3", "optionB".
	Answer func(h int) string
	// Moves returns an episode's moves, or an error when it is not one of
	// the task's.
	Moves func(tasks.Episode) (Moves, error)

	constOnce sync.Once
	constant  int // the best constant hypothesis on the train split
	constErr  error
}

// BestConstant searches every answer that ignores the replies. A final
// answer scores by its unique argmax alone, so the answer space reduces to
// the K one-hot answers; the best is the hypothesis most often true among
// the first n instances of split (the first of them on a tie).
func (d *Dialogue) BestConstant(split tasks.Split, n int) (string, float64, error) {
	h, succ, err := d.bestConstant(split, n)
	if err != nil {
		return "", 0, err
	}
	return d.Answer(h), succ, nil
}

func (d *Dialogue) bestConstant(split tasks.Split, n int) (int, float64, error) {
	if n < 1 {
		return 0, 0, fmt.Errorf("best constant over %d instances", n)
	}
	count := make([]int, d.Hypotheses)
	for i := 0; i < n; i++ {
		h, err := d.Truth(split, i)
		if err != nil {
			return 0, 0, err
		}
		count[h]++
	}
	best := 0
	for h, c := range count {
		if c > count[best] {
			best = h
		}
	}
	return best, float64(count[best]) / float64(n), nil
}

// Measures summarises an episode over k hypotheses (see tasks.Measures):
// the counts and AS proxy of steps, the BT measures of the stated beliefs'
// truth masses psis from the flat belief 1/k, ias as I_AS, and the
// evidence and success of the final belief (nil if it was malformed).
func Measures(steps []tasks.Step, k int, psis []float64, ias float64, final tasks.Belief, truth int) tasks.Measures {
	m := tasks.Measures{Turns: len(steps), ASProxy: tasks.ASProxy(steps), IAS: ias}
	for _, s := range steps {
		if s.Malformed {
			m.Malformed++
		}
		if s.Repeat {
			m.Repeats++
		}
	}
	m.BTProxy, m.CBT = tasks.BeliefGains(1/float64(k), psis)
	if final != nil {
		m.Evidence = final[truth]
		if top, unique := final.Argmax(); unique && top == truth {
			m.Success, m.Reward = true, 1
		}
	}
	return m
}

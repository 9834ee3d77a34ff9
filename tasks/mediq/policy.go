package mediq

import (
	"fmt"

	"arew/tasks"
	"arew/tasks/internal/diagnosis"
)

// Scripted returns a scripted policy (diagnosis.Dialogue.Scripted; doc.go,
// "Scripted policies and baselines").
func (t *Task) Scripted(spec tasks.PolicySpec) (tasks.Policy, error) {
	return t.dialogue.Scripted(spec)
}

// BestConstant is the best answer that ignores the replies, "option X"
// (diagnosis.Dialogue.BestConstant); options are shuffled, so about 1/4.
func (t *Task) BestConstant(split tasks.Split, n int) (string, float64, error) {
	return t.dialogue.BestConstant(split, n)
}

// newDialogue describes t to the parts it shares with FloDial.
func (t *Task) newDialogue() *diagnosis.Dialogue {
	return &diagnosis.Dialogue{Name: "mediq", Hypotheses: 4, Levels: t.levels,
		Truth: func(split tasks.Split, i int) (int, error) {
			p, err := t.patient(split, i)
			if err != nil {
				return 0, err
			}
			return p.truth, nil
		},
		Answer: func(o int) string { return "option" + string(rune('A'+o)) },
		Moves: func(ep tasks.Episode) (diagnosis.Moves, error) {
			if e, ok := ep.(*episode); ok && e.t == t {
				return moves{e}, nil
			}
			return nil, fmt.Errorf("mediq policy: episode of another task (%T)", ep)
		}}
}

// moves are a MediQ episode as the scripted policies see it: the findings,
// the information gain P(the patient can answer) · I(option; value), a
// finding pertinent to the options as the informative kind, and beliefs
// "real <cf> counterfactual".
type moves struct{ *episode }

func (m moves) Asked() []bool                              { return m.asked }
func (m moves) Informative(f int) bool                     { return m.t.pertinent(m.p.options, f) }
func (m moves) Posterior() (now, beforeQuery tasks.Belief) { return m.post, m.prePost }
func (m moves) Stated() []int                              { return m.statedLevels }
func (m moves) Query(f int) []tasks.Token                  { return []tasks.Token{m.t.fn0 + tasks.Token(f)} }
func (m moves) Gain(f int) float64 {
	return (1 - m.t.pUnknown(m.p.options, f)) * tasks.MutualInformation(m.post, m.t.kb.findings[f].values(), m.lik(f))
}
func (m moves) Belief(real, prev []int) []tasks.Token {
	return append(append(m.t.levels.Encode(real), m.t.cf), m.t.levels.Encode(prev)...)
}

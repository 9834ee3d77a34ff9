package flodial

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

// BestConstant is the best answer that ignores the replies, "fault f"
// (diagnosis.Dialogue.BestConstant); the truth is uniform, so about 1/K.
func (t *Task) BestConstant(split tasks.Split, n int) (string, float64, error) {
	return t.dialogue.BestConstant(split, n)
}

// newDialogue describes t to the parts it shares with MediQ.
func (t *Task) newDialogue() *diagnosis.Dialogue {
	return &diagnosis.Dialogue{Name: "flodial", Hypotheses: t.cfg.Faults, Levels: t.levels,
		Truth: func(split tasks.Split, i int) (int, error) {
			inst, err := t.instance(split, i)
			if err != nil {
				return 0, err
			}
			return inst.truth, nil
		},
		Answer: func(f int) string { return fmt.Sprintf("fault%d", f) },
		Moves: func(ep tasks.Episode) (diagnosis.Moves, error) {
			if e, ok := ep.(*episode); ok && e.t == t {
				return moves{e}, nil
			}
			return nil, fmt.Errorf("flodial policy: episode of another task (%T)", ep)
		}}
}

// moves are a FloDial episode as the scripted policies see it: the
// questions, the information gain under the posterior (flat on C), and
// beliefs without a counterfactual.
type moves struct{ *episode }

func (m moves) Asked() []bool                              { return m.asked }
func (m moves) Gain(q int) float64                         { return tasks.MutualInformation(m.post, 3, m.inst.lik(q)) }
func (m moves) Informative(q int) bool                     { return tasks.Splits(m.post, flat, 3, m.inst.lik(q)) }
func (m moves) Posterior() (now, beforeQuery tasks.Belief) { return m.post, m.post } // the second is never stated
func (m moves) Stated() []int                              { return m.statedLevels }
func (m moves) Query(q int) []tasks.Token                  { return []tasks.Token{m.t.q0 + tasks.Token(q)} }
func (m moves) Belief(real, _ []int) []tasks.Token         { return m.t.levels.Encode(real) }

package sciworld

import (
	"testing"

	"arew/tasks/textworld"
)

// BenchmarkExpertStep times what a rollout does per step: render the state
// as a prompt (admissible list included), ask the planner, step. It reports
// steps per second.
func BenchmarkExpertStep(b *testing.B) {
	w := lab(b)
	steps := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e, err := w.NewEnv(textworld.Test, i%w.cfg.Test)
		if err != nil {
			b.Fatal(err)
		}
		var past []textworld.Turn
		for !e.Done() {
			s := textworld.Snapshot(e, past, textworld.History)
			_ = s.Tokens(w.vocab)
			a := e.Expert()
			if _, err := e.Step(a); err != nil {
				b.Fatal(err)
			}
			past = append(past, textworld.Turn{Obs: s.Obs, Action: a})
			steps++
		}
	}
	b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
}

package webshop

import (
	"testing"
)

// FuzzFromJSON: any configuration text builds a world or returns an error.
func FuzzFromJSON(f *testing.F) {
	for _, s := range []string{`{}`, `{"Train":3,"Test":2}`, `{"MaxSteps":-1}`, `{"Seed":7}`, `[`, `{"Train":"x"}`, `{"Train":1e12}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := FromJSON([]byte(s))
		if err != nil {
			return
		}
		if w.cfg.Train > 2000 {
			return // valid but slow to play here
		}
		e, err := w.NewEnv(0, 0)
		if err == nil && !e.Done() {
			_, _ = e.Step(e.Expert())
		}
	})
}

package alfworld

import (
	"testing"

	"arew/tasks/textworld/textworldtest"
)

// BenchmarkExpertStep times what a rollout does per step
// (textworldtest.BenchmarkExpert); it reports steps per second.
func BenchmarkExpertStep(b *testing.B) {
	w := world(b)
	textworldtest.BenchmarkExpert(b, w, w.cfg.Test)
}

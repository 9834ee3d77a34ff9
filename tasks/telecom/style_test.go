package telecom

import (
	"testing"

	"arew/tasks/taskstest"
)

// A style only inserts its token after BOS, in both settings, and shares
// one vocabulary between the two styles.
func TestStyles(t *testing.T) {
	taskstest.CheckStyles(t, "telecom-solo", nil)
	taskstest.CheckStyles(t, "telecom-dual", map[string]any{"Critiques": "consistent"})
}

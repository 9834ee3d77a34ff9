package act

import (
	"os"
	"testing"

	"arew/kernels"
)

// TestMain names the kernel set before any benchmark's figures.
func TestMain(m *testing.M) {
	kernels.AnnounceKernels()
	os.Exit(m.Run())
}

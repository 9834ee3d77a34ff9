package engine

import (
	"arew/kernels"
	"os"
	"testing"
)

// TestMain names the kernel set before any benchmark's figures.
func TestMain(m *testing.M) {
	kernels.AnnounceKernels()
	os.Exit(m.Run())
}

package kernels

import (
	"os"
	"testing"
)

// TestMain names the kernel set before any benchmark's figures.
func TestMain(m *testing.M) {
	AnnounceKernels()
	os.Exit(m.Run())
}

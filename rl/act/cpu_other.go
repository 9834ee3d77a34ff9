//go:build !unix

package act

// processCPU reports no CPU time where the platform has no getrusage.
func processCPU() (float64, bool) { return 0, false }

package kernels

// marginParallelMinTokens is the batch size (tokens) from which
// MarginCorrection splits the trajectories over goroutines; see
// BenchmarkMarginCorrection(Ref).
const marginParallelMinTokens = 1 << 15

// MarginCorrection is the fast path of MarginCorrectionRef (same contract,
// bit-identical results): the same per-trajectory loop, run on GOMAXPROCS
// goroutines over disjoint chunks of trajectories once the batch has
// marginParallelMinTokens tokens.
func MarginCorrection(p Packed, steps Steps, mode MarginMode, lambda float64, out []float32, accumulate bool) error {
	if err := checkMarginArgs(p, steps, mode, lambda, out); err != nil {
		return err
	}
	forTrajectoryChunks(p, marginParallelMinTokens, func(b0, b1 int) {
		marginRange(p, steps, mode, lambda, out, accumulate, b0, b1)
	})
	return nil
}

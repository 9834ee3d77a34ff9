package kernels

// gaeParallelMinTokens is the batch size (tokens) from which GAE splits the
// trajectories over goroutines; see BenchmarkGAE and BenchmarkGAERef.
const gaeParallelMinTokens = 1 << 15

// GAE is the fast path of GAERef (same contract, bit-identical results): the
// same per-trajectory recursion, run on GOMAXPROCS goroutines over disjoint
// chunks of trajectories once the batch has gaeParallelMinTokens tokens.
func GAE(p Packed, rewards, values []float32, gamma, lambda float64, adv, ret []float32) error {
	if err := checkGAEArgs(p, rewards, values, gamma, lambda, adv, ret); err != nil {
		return err
	}
	forTrajectoryChunks(p, gaeParallelMinTokens, func(b0, b1 int) {
		gaeRange(p, rewards, values, gamma, lambda, adv, ret, b0, b1)
	})
	return nil
}

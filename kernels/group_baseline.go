package kernels

// groupParallelMinTokens is the batch size (tokens) from which GroupBaseline
// broadcasts over goroutines; see BenchmarkGroupBaseline(Ref).
const groupParallelMinTokens = 1 << 15

// GroupBaseline is the fast path of GroupBaselineRef (same contract,
// bit-identical results): the per-group statistics are the same serial O(B)
// loop, and the O(T) broadcast runs on GOMAXPROCS goroutines over disjoint
// chunks of trajectories once the batch has groupParallelMinTokens tokens.
func GroupBaseline(p Packed, scores []float32, groups []int32, norm GroupNorm, out []float32) error {
	if err := checkGroupBaselineArgs(p, scores, groups, norm, out); err != nil {
		return err
	}
	perTraj := make([]float32, len(scores))
	groupAdvantages(scores, groups, norm, perTraj)
	forTrajectoryChunks(p, groupParallelMinTokens, func(b0, b1 int) {
		broadcastRange(p, perTraj, out, b0, b1)
	})
	return nil
}

// GroupAdvantages is GroupAdvantagesRef: O(B) work, too small to split.
func GroupAdvantages(scores []float32, groups []int32, norm GroupNorm, adv []float32) error {
	return GroupAdvantagesRef(scores, groups, norm, adv)
}

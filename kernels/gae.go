package kernels

// GAE is GAERef: no fast path pays for itself here. A split of the
// trajectories over goroutines (bit-identical to the reference; in commit
// b62bef2 with its benchmarks BenchmarkGAE and BenchmarkGAERef) measured a
// median ref/fast time ratio of 1.06 at 64x256 and 0.92 at 512x256 over 25
// interleaved pairs on this 2-core host shared with other jobs (load 10–16),
// i.e. no gain. The reference costs a few ns per token (a 512x256 batch in
// about a millisecond), far below one model forward; the recursion is a
// dependent chain per trajectory, so a faster CPU path would interleave
// several trajectories per core, and the GPU port runs one per thread.
func GAE(p Packed, rewards, values []float32, gamma, lambda float64, adv, ret []float32) error {
	return GAERef(p, rewards, values, gamma, lambda, adv, ret)
}

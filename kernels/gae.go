package kernels

// GAE is GAERef: no fast path pays for itself here. A split of the
// trajectories over goroutines (bit-identical to the reference) gives no
// gain on the 2-core host (docs/bench.md, "Advantage kernels"). The
// reference costs far less than one model forward; the recursion is a
// dependent chain per trajectory, so a faster CPU path would interleave
// several trajectories per core, and the GPU port runs one per thread.
func GAE(p Packed, rewards, values []float32, gamma, lambda float64, adv, ret []float32) error {
	return GAERef(p, rewards, values, gamma, lambda, adv, ret)
}

package kernels

// GroupBaseline is GroupBaselineRef: no fast path pays for itself here. The
// statistics are O(B); splitting the O(T) broadcast over goroutines
// (bit-identical; in commit b62bef2 with BenchmarkGroupBaselineRef) measured
// a median ref/fast time ratio of 0.89 at 64x256 and 1.06 at 512x256 over 25
// interleaved pairs on this 2-core shared host, i.e. no gain for a pass that
// is a memory-speed broadcast already.
func GroupBaseline(p Packed, scores []float32, groups []int32, norm GroupNorm, out []float32) error {
	return GroupBaselineRef(p, scores, groups, norm, out)
}

// GroupAdvantages is GroupAdvantagesRef: O(B) work, too small to split.
func GroupAdvantages(scores []float32, groups []int32, norm GroupNorm, adv []float32) error {
	return GroupAdvantagesRef(scores, groups, norm, adv)
}

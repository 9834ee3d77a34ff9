package kernels

// GroupBaseline is GroupBaselineRef: no fast path pays for itself here. The
// statistics are O(B); splitting the O(T) broadcast over goroutines
// (bit-identical) gives no gain on the 2-core host for a pass that is a
// memory-speed broadcast already (docs/bench.md, "Advantage kernels").
func GroupBaseline(p Packed, scores []float32, groups []int32, norm GroupNorm, out []float32) error {
	return GroupBaselineRef(p, scores, groups, norm, out)
}

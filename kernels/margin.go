package kernels

// MarginCorrection is MarginCorrectionRef: no fast path pays for itself here.
// A split of the trajectories over goroutines (bit-identical; in commit
// b62bef2 with BenchmarkMarginCorrectionRef) measured a median ref/fast time
// ratio of 0.88 (step) and 0.94 (step_spread) at 64x256, 1.10 and 1.33 at
// 512x256, with interquartile ranges spanning 0.7–3 (25 interleaved pairs on
// this 2-core host shared with other jobs): no gain that survives the noise,
// for two passes over the mask.
func MarginCorrection(p Packed, steps Steps, mode MarginMode, lambda float64, out []float32, accumulate bool) error {
	return MarginCorrectionRef(p, steps, mode, lambda, out, accumulate)
}

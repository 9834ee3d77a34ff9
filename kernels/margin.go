package kernels

// MarginCorrection is MarginCorrectionRef: no fast path pays for itself here.
// A split of the trajectories over goroutines (bit-identical) gives no gain
// that survives the noise on the 2-core host, for two passes over the mask
// (docs/bench.md, "Advantage kernels").
func MarginCorrection(p Packed, steps Steps, mode MarginMode, lambda float64, out []float32, accumulate bool) error {
	return MarginCorrectionRef(p, steps, mode, lambda, out, accumulate)
}

package kernels

// TokenLogProb is the fast forward; see TokenLogProbRef for the contract.
// Until the vectorised path lands it is the reference.
func TokenLogProb(logits []float32, n, v int, targets []int32, logp, lse, ent []float32) error {
	return TokenLogProbRef(logits, n, v, targets, logp, lse, ent)
}

// TokenLogProbBackward is the fast backward; see TokenLogProbBackwardRef.
func TokenLogProbBackward(logits []float32, n, v int, targets []int32, lse, ent, gLogp, gEnt, dlogits []float32, accumulate bool) error {
	return TokenLogProbBackwardRef(logits, n, v, targets, lse, ent, gLogp, gEnt, dlogits, accumulate)
}

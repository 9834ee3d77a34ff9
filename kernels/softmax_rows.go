package kernels

import "fmt"

// SoftmaxRow is the attention kernels' softmax of one row of scores, for
// callers outside the package that form their own score rows (the model's
// attention at selected rows): p[s] = exp(a[s] − max a)/Σ exp(a − max a)
// with a = scale·x, the float32 exp, the normaliser summed in float64, the
// same code (and so the same values) as AttentionForward's rows. x is
// overwritten with a; p may be x. An empty row or a short p is an error.
func SoftmaxRow(x []float32, scale float32, p []float32) error {
	if len(x) == 0 || len(p) < len(x) {
		return fmt.Errorf("softmax row: %d scores, %d outputs", len(x), len(p))
	}
	softmaxRow(x, scale, p[:len(x)])
	return nil
}

// SoftmaxGradRow is AttentionBackward's softmax gradient of one row:
// da[s] = p[s]·(dp[s] − Σ p·dp)·scale, in float64 (the dot too), rounded
// to float32 on store. da may be dp. Rows of different lengths are an
// error.
func SoftmaxGradRow(p, dp []float32, scale float64, da []float32) error {
	if len(p) == 0 || len(dp) != len(p) || len(da) != len(p) {
		return fmt.Errorf("softmax grad row: %d probabilities, %d gradients, %d outputs", len(p), len(dp), len(da))
	}
	softmaxGradRow(p, dp, scale, da)
	return nil
}

package model

import "arew/kernels"

// matMul is c = a·b (accumulate: c += a·b) for a (m,k), b (k,n), c (m,n),
// row-major: the one place the rollout forward multiplies matrices. It is
// kernels.MatMul (the AVX2 Sgemm), on slices cut to their exact sizes. The
// shapes come from the model's own buffers, so an error is a programmer bug.
func matMul(a, b, c []float32, m, k, n int, accumulate bool) {
	if err := kernels.MatMul(a[:m*k], b[:k*n], c[:m*n], m, k, n, accumulate); err != nil {
		panic("model: " + err.Error())
	}
}

// addRows adds the bias b (n) to every row of x (m,n).
func addRows(x, b []float32, m, n int) {
	for i := 0; i < m; i++ {
		row := x[i*n : (i+1)*n]
		for j, bj := range b[:n] {
			row[j] += bj
		}
	}
}

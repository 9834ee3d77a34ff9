package kernels

import (
	"fmt"
	"math"
)

// LayerNormForwardRef is the reference LayerNorm over the last axis.
// x is (n,c) row-major, gamma and beta are (c), y is (n,c), mean and rstd
// are (n) float64:
//
//	mean[i] = (1/c) Σ_j x[i,j]
//	var[i]  = (1/c) Σ_j (x[i,j] − mean[i])²       (biased, as nn.LayerNorm)
//	rstd[i] = 1 / sqrt(var[i] + eps)
//	y[i,j]  = (x[i,j] − mean[i])·rstd[i]·gamma[j] + beta[j]
//
// mean and var are computed in float64 in two passes: a one-pass
// E[x²] − E[x]² in float32 loses every digit when the row has a large
// common offset (1e4 ± 1), the two-pass form does not. mean and rstd are
// saved for LayerNormBackwardRef, in float64: a float32 mean of a row near
// 1e4 is off by up to half an ulp (5e-4), which would shift every x̂ of the
// backward by about 1e-3. They may be nil (inference, no backward). A NaN in
// a row makes that row's outputs NaN and no other's. Lengths are checked
// before any output is written.
func LayerNormForwardRef(x []float32, n, c int, gamma, beta []float32, eps float64, y []float32, mean, rstd []float64) error {
	if err := checkLayerNormForward(x, n, c, gamma, beta, eps, y, mean, rstd); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		row := x[i*c : (i+1)*c]
		m := 0.0
		for _, v := range row {
			m += float64(v)
		}
		m /= float64(c)
		v2 := 0.0
		for _, v := range row {
			d := float64(v) - m
			v2 += d * d
		}
		r := 1 / math.Sqrt(v2/float64(c)+eps)
		out := y[i*c : (i+1)*c]
		for j, v := range row {
			out[j] = float32((float64(v)-m)*r*float64(gamma[j]) + float64(beta[j]))
		}
		if mean != nil {
			mean[i], rstd[i] = m, r
		}
	}
	return nil
}

// LayerNormBackwardRef is the reference LayerNorm backward. Given the
// upstream gradient dy (n,c), the forward input x, gamma and the saved mean
// and rstd, it writes (each output may be nil to skip it; outputs are
// overwritten, not accumulated):
//
//	x̂[i,j]    = (x[i,j] − mean[i])·rstd[i],   g[i,j] = dy[i,j]·gamma[j]
//	dx[i,j]   = rstd[i]·(g[i,j] − mean_j(g[i,·]) − x̂[i,j]·mean_j(g[i,·]·x̂[i,·]))
//	dgamma[j] = Σ_i dy[i,j]·x̂[i,j]
//	dbeta[j]  = Σ_i dy[i,j]
//
// (derived in engine/doc_ops.go). Sums are accumulated in float64.
func LayerNormBackwardRef(x []float32, n, c int, gamma []float32, mean, rstd []float64, dy, dx, dgamma, dbeta []float32) error {
	if err := checkLayerNormBackward(x, n, c, gamma, mean, rstd, dy, dx, dgamma, dbeta); err != nil {
		return err
	}
	for i := 0; i < n && dx != nil; i++ {
		row, drow, out := x[i*c:(i+1)*c], dy[i*c:(i+1)*c], dx[i*c:(i+1)*c]
		m, r := mean[i], rstd[i]
		gMean, gxMean := 0.0, 0.0
		for j, v := range row {
			g := float64(drow[j]) * float64(gamma[j])
			gMean += g
			gxMean += g * (float64(v) - m) * r
		}
		gMean /= float64(c)
		gxMean /= float64(c)
		for j, v := range row {
			xh := (float64(v) - m) * r
			g := float64(drow[j]) * float64(gamma[j])
			out[j] = float32(r * (g - gMean - xh*gxMean))
		}
	}
	for j := 0; j < c && (dgamma != nil || dbeta != nil); j++ {
		sg, sb := 0.0, 0.0
		for i := 0; i < n; i++ {
			d := float64(dy[i*c+j])
			sg += d * ((float64(x[i*c+j]) - mean[i]) * rstd[i])
			sb += d
		}
		if dgamma != nil {
			dgamma[j] = float32(sg)
		}
		if dbeta != nil {
			dbeta[j] = float32(sb)
		}
	}
	return nil
}

func checkLayerNormForward(x []float32, n, c int, gamma, beta []float32, eps float64, y []float32, mean, rstd []float64) error {
	if n < 0 || c < 1 {
		return fmt.Errorf("layernorm: bad shape n=%d c=%d", n, c)
	}
	if !(eps >= 0) || math.IsInf(eps, 1) {
		return fmt.Errorf("layernorm: eps must be finite and ≥ 0, got %g", eps)
	}
	if len(x) < n*c || len(y) < n*c || len(gamma) < c || len(beta) < c {
		return fmt.Errorf("layernorm: buffers too short for n=%d c=%d (x %d, y %d, gamma %d, beta %d)",
			n, c, len(x), len(y), len(gamma), len(beta))
	}
	if (mean == nil) != (rstd == nil) || (mean != nil && (len(mean) < n || len(rstd) < n)) {
		return fmt.Errorf("layernorm: mean and rstd must both be nil or both of length ≥ n=%d (got %d, %d)", n, len(mean), len(rstd))
	}
	return nil
}

func checkLayerNormBackward(x []float32, n, c int, gamma []float32, mean, rstd []float64, dy, dx, dgamma, dbeta []float32) error {
	if n < 0 || c < 1 {
		return fmt.Errorf("layernorm backward: bad shape n=%d c=%d", n, c)
	}
	if len(x) < n*c || len(dy) < n*c || len(mean) < n || len(rstd) < n {
		return fmt.Errorf("layernorm backward: inputs too short for n=%d c=%d (x %d, dy %d, mean %d, rstd %d)",
			n, c, len(x), len(dy), len(mean), len(rstd))
	}
	if dx != nil && (len(dx) < n*c || len(gamma) < c) {
		return fmt.Errorf("layernorm backward: dx needs dx of %d and gamma of %d, got %d and %d", n*c, c, len(dx), len(gamma))
	}
	if (dgamma != nil && len(dgamma) < c) || (dbeta != nil && len(dbeta) < c) {
		return fmt.Errorf("layernorm backward: dgamma/dbeta shorter than c=%d", c)
	}
	return nil
}

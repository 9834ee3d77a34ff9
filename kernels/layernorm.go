package kernels

import "math"

// LayerNormForward is the fast LayerNorm forward; the contract (shapes,
// float64 statistics, NaN, errors) is LayerNormForwardRef's. Rows run in
// parallel above a size threshold; each row's sums use four float64
// accumulators (a fixed order per row, so results do not depend on the
// goroutine count). It agrees with the reference to float32 rounding.
func LayerNormForward(x []float32, n, c int, gamma, beta []float32, eps float64, y []float32, mean, rstd []float64) error {
	if err := checkLayerNormForward(x, n, c, gamma, beta, eps, y, mean, rstd); err != nil {
		return err
	}
	gamma, beta = gamma[:c], beta[:c]
	parallelFor(n, 8*c, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := x[i*c : (i+1)*c]
			m, r := rowMeanRstd(row, eps)
			out := y[i*c : (i+1)*c]
			out = out[:len(row)]
			for j, v := range row {
				out[j] = float32((float64(v)-m)*r*float64(gamma[j]) + float64(beta[j]))
			}
			if mean != nil {
				mean[i], rstd[i] = m, r
			}
		}
	})
	return nil
}

// rowMeanRstd is the two-pass float64 mean and 1/sqrt(biased var + eps) of
// one row, with four independent accumulators per pass.
func rowMeanRstd(row []float32, eps float64) (mean, rstd float64) {
	c := len(row)
	var s0, s1, s2, s3 float64
	j := 0
	for ; j+4 <= c; j += 4 {
		s0 += float64(row[j])
		s1 += float64(row[j+1])
		s2 += float64(row[j+2])
		s3 += float64(row[j+3])
	}
	for ; j < c; j++ {
		s0 += float64(row[j])
	}
	mean = (s0 + s1 + s2 + s3) / float64(c)
	s0, s1, s2, s3 = 0, 0, 0, 0
	j = 0
	for ; j+4 <= c; j += 4 {
		d0 := float64(row[j]) - mean
		d1 := float64(row[j+1]) - mean
		d2 := float64(row[j+2]) - mean
		d3 := float64(row[j+3]) - mean
		s0 += d0 * d0
		s1 += d1 * d1
		s2 += d2 * d2
		s3 += d3 * d3
	}
	for ; j < c; j++ {
		d := float64(row[j]) - mean
		s0 += d * d
	}
	return mean, 1 / math.Sqrt((s0+s1+s2+s3)/float64(c)+eps)
}

// layerNormColBlock is how many columns one item of the dgamma/dbeta
// reduction owns: a block's float64 accumulators stay on the stack.
const layerNormColBlock = 32

// LayerNormBackward is the fast LayerNorm backward; the contract is
// LayerNormBackwardRef's (nil outputs are skipped, outputs overwritten). dx
// runs in parallel over rows; dgamma and dbeta are column sums over all
// rows, run in parallel over blocks of columns, each column summed in row
// order in float64, so no result depends on the goroutine count.
func LayerNormBackward(x []float32, n, c int, gamma []float32, mean, rstd []float64, dy, dx, dgamma, dbeta []float32) error {
	if err := checkLayerNormBackward(x, n, c, gamma, mean, rstd, dy, dx, dgamma, dbeta); err != nil {
		return err
	}
	if dx != nil {
		gamma = gamma[:c]
		parallelFor(n, 12*c, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				layerNormBackwardRow(x[i*c:(i+1)*c], dy[i*c:(i+1)*c], gamma, mean[i], rstd[i], dx[i*c:(i+1)*c])
			}
		})
	}
	if dgamma == nil && dbeta == nil {
		return nil
	}
	blocks := (c + layerNormColBlock - 1) / layerNormColBlock
	parallelFor(blocks, 4*n*layerNormColBlock, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			j0, j1 := b*layerNormColBlock, min((b+1)*layerNormColBlock, c)
			var sg, sb [layerNormColBlock]float64
			for i := 0; i < n; i++ {
				dr := dy[i*c+j0 : i*c+j1]
				if dbeta != nil {
					for k, d := range dr {
						sb[k] += float64(d)
					}
				}
				if dgamma != nil {
					m, r := mean[i], rstd[i]
					xr := x[i*c+j0 : i*c+j1]
					xr = xr[:len(dr)]
					for k, d := range dr {
						sg[k] += float64(d) * ((float64(xr[k]) - m) * r)
					}
				}
			}
			for k := 0; k < j1-j0; k++ {
				if dgamma != nil {
					dgamma[j0+k] = float32(sg[k])
				}
				if dbeta != nil {
					dbeta[j0+k] = float32(sb[k])
				}
			}
		}
	})
	return nil
}

// layerNormBackwardRow writes one row of dx (see LayerNormBackwardRef).
func layerNormBackwardRow(row, drow, gamma []float32, m, r float64, out []float32) {
	c := len(row)
	drow, gamma, out = drow[:c], gamma[:c], out[:c]
	var g0, g1, gx0, gx1 float64
	j := 0
	for ; j+2 <= c; j += 2 {
		ga := float64(drow[j]) * float64(gamma[j])
		gb := float64(drow[j+1]) * float64(gamma[j+1])
		g0 += ga
		g1 += gb
		gx0 += ga * ((float64(row[j]) - m) * r)
		gx1 += gb * ((float64(row[j+1]) - m) * r)
	}
	for ; j < c; j++ {
		g := float64(drow[j]) * float64(gamma[j])
		g0 += g
		gx0 += g * ((float64(row[j]) - m) * r)
	}
	gMean := (g0 + g1) / float64(c)
	gxMean := (gx0 + gx1) / float64(c)
	for j, v := range row {
		xh := (float64(v) - m) * r
		out[j] = float32(r * (float64(drow[j])*float64(gamma[j]) - gMean - xh*gxMean))
	}
}

package kernels

import "math"

// The portable row loops of TokenLogProb and its backward: the same
// algorithm and outputs as the AVX2 assembly (logprob_amd64.s), in scalar Go
// unrolled by four so four exponentials are in flight. Used on CPUs without
// AVX2+FMA and on other architectures.

// lseBlock is the block of logits whose max is taken before its
// exponentials are summed: 1 KiB, so the second read hits L1.
const lseBlock = 256

// lseRowsGo writes, for row r of x (rows, v), m[r] = max(row, −MaxFloat32),
// s[r] = Σ e^(x−m) and t[r] = Σ e^(x−m)·(x−m). Each block is summed in four
// float32 lanes and folded into float64 totals.
func lseRowsGo(x []float32, v, rows int, ms, ss, ts []float32) {
	for r := 0; r < rows; r++ {
		row := x[r*v : (r+1)*v]
		m := float32(-math.MaxFloat32)
		var sum, tsum float64
		for b := 0; b < v; b += lseBlock {
			blk := row[b:min(b+lseBlock, v)]
			if bm := blockMax(blk); bm > m {
				// Rescale the totals from shift m to shift bm.
				d := clampLo(m - bm)
				a := float64(exp32(d))
				tsum = a * (tsum + float64(d)*sum)
				sum *= a
				m = bm
			}
			var s, t [4]float32
			j := 0
			for ; j+4 <= len(blk); j += 4 {
				d0, d1, d2, d3 := clampLo(blk[j]-m), clampLo(blk[j+1]-m), clampLo(blk[j+2]-m), clampLo(blk[j+3]-m)
				e0, e1, e2, e3 := exp32(d0), exp32(d1), exp32(d2), exp32(d3)
				s[0], s[1], s[2], s[3] = s[0]+e0, s[1]+e1, s[2]+e2, s[3]+e3
				t[0], t[1], t[2], t[3] = t[0]+e0*d0, t[1]+e1*d1, t[2]+e2*d2, t[3]+e3*d3
			}
			for ; j < len(blk); j++ {
				d := clampLo(blk[j] - m)
				e := exp32(d)
				s[0] += e
				t[0] += e * d
			}
			sum += float64(s[0]) + float64(s[1]) + float64(s[2]) + float64(s[3])
			tsum += float64(t[0]) + float64(t[1]) + float64(t[2]) + float64(t[3])
		}
		ms[r], ss[r], ts[r] = m, float32(sum), float32(tsum)
	}
}

// blockMax is the largest non-NaN value of blk (−Inf if none). A NaN is
// skipped here; it still makes the row's sum NaN.
func blockMax(blk []float32) float32 {
	inf := float32(math.Inf(-1))
	m := [4]float32{inf, inf, inf, inf}
	j := 0
	for ; j+4 <= len(blk); j += 4 {
		for k := range m {
			if blk[j+k] > m[k] {
				m[k] = blk[j+k]
			}
		}
	}
	for ; j < len(blk); j++ {
		if blk[j] > m[0] {
			m[0] = blk[j]
		}
	}
	return max(m[0], m[1], m[2], m[3])
}

// clampLo raises x to expLo, where e^x is exactly 0, keeping NaN; it keeps
// e^d·d finite (0) when d = −Inf.
func clampLo(x float32) float32 {
	if x < expLo {
		return expLo
	}
	return x
}

// dzRowsGo writes (or adds) e^lp·(a + b·lp), lp = clamp(x − L, −88, 0), per
// row of x (rows, v) into dz, with (L, a, b) per row in par (rows, 3).
func dzRowsGo(x []float32, v, rows int, par []float32, dz []float32, accumulate bool) {
	for r := 0; r < rows; r++ {
		row, drow := x[r*v:(r+1)*v], dz[r*v:(r+1)*v]
		l, a, b := par[3*r], par[3*r+1], par[3*r+2]
		dzOf := func(z float32) float32 {
			lp := clampLo(z - l)
			if lp > 0 {
				lp = 0
			}
			return exp32(lp) * (a + b*lp)
		}
		j := 0
		for ; j+4 <= v; j += 4 {
			d0, d1, d2, d3 := dzOf(row[j]), dzOf(row[j+1]), dzOf(row[j+2]), dzOf(row[j+3])
			if accumulate {
				d0, d1, d2, d3 = drow[j]+d0, drow[j+1]+d1, drow[j+2]+d2, drow[j+3]+d3
			}
			drow[j], drow[j+1], drow[j+2], drow[j+3] = d0, d1, d2, d3
		}
		for ; j < v; j++ {
			d := dzOf(row[j])
			if accumulate {
				d += drow[j]
			}
			drow[j] = d
		}
	}
}

package kernels

import (
	"fmt"
	"math"
)

// CachedAttention is one query's causal attention over n cached positions
// of one head, the inner step of KV-cache decoding:
//
//	a_u = scale·(q·k_u)  (u < n),  p = softmax(a),  out = Σ_u p_u·v_u
//
// in the cache layout the decoder keeps, chosen so that both products are
// contiguous (the same two products as AttentionForward, attention_gemv.go):
//
//	q     (hdp)       the query, zero past the head size
//	kt    (hdp, ld)   the keys transposed: element i of key u at kt[i·ld + u]
//	v     (n, hdp)    the values: element j of value u at v[u·hdp + j]
//	out   (hdp)       overwritten; lanes past the head size get 0 when the
//	                  values' padding is 0
//	scores (≥ roundUp8(n))  scratch
//
// hdp and ld are multiples of 8 with n ≤ ld. Scores are float32 products
// and the softmax is AttentionForward's (softmaxRow). Lanes of scores past n are
// computed from whatever kt holds there and thrown away: they never reach
// out. Bad sizes are a programmer error and return one.
func CachedAttention(q, kt, v []float32, ld, n int, scale float32, scores, out []float32) error {
	hdp := len(q)
	nr := roundUp8(n)
	if hdp == 0 || hdp%8 != 0 || ld%8 != 0 || n < 1 || n > ld || len(kt) < hdp*ld ||
		len(v) < n*hdp || len(scores) < nr || len(out) != hdp {
		return fmt.Errorf("cached attention: bad sizes q %d, kt %d, v %d, ld %d, n %d, scores %d, out %d",
			len(q), len(kt), len(v), ld, n, len(scores), len(out))
	}
	gemvT(q, kt, ld, nr, scores)
	sc := scores[:n]
	softmaxRow(sc, scale, sc)
	gemvN(sc, v, n, out)
	return nil
}

// CachedAttentionRef is CachedAttention in plain float64 loops (same
// layout and contract), the reference the fast version is tested against.
func CachedAttentionRef(q, kt, v []float32, ld, n int, scale float32, scores, out []float32) error {
	hdp := len(q)
	if hdp == 0 || hdp%8 != 0 || ld%8 != 0 || n < 1 || n > ld || len(kt) < hdp*ld ||
		len(v) < n*hdp || len(scores) < roundUp8(n) || len(out) != hdp {
		return fmt.Errorf("cached attention: bad sizes q %d, kt %d, v %d, ld %d, n %d, scores %d, out %d",
			len(q), len(kt), len(v), ld, n, len(scores), len(out))
	}
	a := make([]float64, n)
	mx := math.Inf(-1)
	for u := range a {
		s := 0.0
		for i := range hdp {
			s += float64(q[i]) * float64(kt[i*ld+u])
		}
		a[u] = s * float64(scale)
		mx = math.Max(mx, a[u])
	}
	sum := 0.0
	for u := range a {
		a[u] = math.Exp(a[u] - mx)
		sum += a[u]
	}
	for j := range out {
		o := 0.0
		for u := range a {
			o += a[u] / sum * float64(v[u*hdp+j])
		}
		out[j] = float32(o)
	}
	return nil
}

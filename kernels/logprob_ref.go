package kernels

import (
	"fmt"
	"math"
)

// TokenLogProbRef is the reference forward of the fused token log-prob.
// logits is (n, v) row-major, targets is (n); logp, lse and ent are (n):
//
//	lse[i]  = log Σ_j exp(z[i,j])
//	logp[i] = z[i,y[i]] − lse[i]
//	ent[i]  = −Σ_j p[i,j] log p[i,j],  p[i,j] = exp(z[i,j] − lse[i])   (only when ent != nil)
//
// It is a plain loop with float64 accumulation, written to be read; the fast
// path TokenLogProb is tested against it. Targets outside [0, v), a shape
// with v < 1 or n < 0, or buffers too short are an error returned before any
// output is written. n = 0 does nothing.
//
// Rows that are not an ordinary distribution, decided per row:
//
//   - a NaN logit: lse, logp and ent are NaN;
//   - a +Inf logit (and no NaN): lse = +Inf, logp and ent are NaN (the
//     softmax is Inf/Inf; no limit is guessed);
//   - every logit −Inf: lse = −Inf, logp and ent are NaN (no mass anywhere).
//
// A −Inf logit in an otherwise finite row has p = 0: it adds nothing to lse
// or ent (p·log p → 0), and logp = −Inf if it is the target. Logits of any
// finite size (±1e4, ±MaxFloat32) are fine: the row max is subtracted first.
func TokenLogProbRef(logits []float32, n, v int, targets []int32, logp, lse, ent []float32) error {
	if err := CheckLogProbArgs(logits, n, v, targets, logp, lse, ent); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		lp, l, h := tokenLogProbRefRow(logits[i*v:(i+1)*v], targets[i], ent != nil)
		logp[i], lse[i] = lp, l
		if ent != nil {
			ent[i] = h
		}
	}
	return nil
}

// tokenLogProbRefRow is one row of TokenLogProbRef; the fast path also uses
// it for the rare rows that are not an ordinary distribution.
func tokenLogProbRefRow(row []float32, y int32, withEnt bool) (logp, lse, ent float32) {
	nan := float32(math.NaN())
	m := math.Inf(-1)
	for _, z := range row {
		if z != z {
			return nan, nan, nan
		}
		m = math.Max(m, float64(z))
	}
	if math.IsInf(m, 0) {
		return nan, float32(m), nan
	}
	s := 0.0
	for _, z := range row {
		s += math.Exp(float64(z) - m)
	}
	l := m + math.Log(s)
	h := 0.0
	if withEnt {
		for _, z := range row {
			lp := float64(z) - l
			if p := math.Exp(lp); p > 0 {
				h -= p * lp
			}
		}
	}
	return float32(float64(row[y]) - l), float32(l), float32(h)
}

// TokenLogProbBackwardRef is the reference backward. dlogits is (n, v); the
// upstream gradients are gLogp (n) and, optionally, gEnt (n; nil for none).
// It writes
//
//	dz[i,j] = gLogp[i]·(1[j=y[i]] − p[i,j]) − gEnt[i]·p[i,j]·(log p[i,j] + H[i])
//
// into dlogits, recomputing p from the saved lse (and H from ent when gEnt is
// given). With accumulate it adds to dlogits instead of overwriting it.
//
// Where it comes from: logp = z_y − lse and ∂lse/∂z_j = p_j give
// ∂logp/∂z_j = 1[j=y] − p_j; H = lse − Σ_k p_k z_k and ∂p_k/∂z_j =
// p_k(1[j=k] − p_j) give ∂H/∂z_j = −p_j(z_j − Σ_k p_k z_k) = −p_j(log p_j + H).
// TestTokenLogProbGradCheck checks both against finite differences.
// The entropy term is 0 where p = 0 (its limit). A row whose lse is not
// finite (the forward's NaN, +Inf and all −Inf rows) gets NaN in every dz
// entry, accumulating or not. Bad arguments are an error before any write.
func TokenLogProbBackwardRef(logits []float32, n, v int, targets []int32, lse, ent, gLogp, gEnt, dlogits []float32, accumulate bool) error {
	if err := CheckLogProbBackwardArgs(logits, n, v, targets, lse, ent, gLogp, gEnt, dlogits); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		row := logits[i*v : (i+1)*v]
		drow := dlogits[i*v : (i+1)*v]
		l := float64(lse[i])
		if math.IsNaN(l) || math.IsInf(l, 0) {
			for j := range drow {
				drow[j] = float32(math.NaN())
			}
			continue
		}
		g := float64(gLogp[i])
		for j, z := range row {
			lp := float64(z) - l
			p := math.Exp(lp)
			d := -g * p
			if j == int(targets[i]) {
				d += g
			}
			if gEnt != nil && p > 0 {
				d -= float64(gEnt[i]) * p * (lp + float64(ent[i]))
			}
			if accumulate {
				drow[j] += float32(d)
			} else {
				drow[j] = float32(d)
			}
		}
	}
	return nil
}

// CheckLogProbArgs is TokenLogProb's argument check (shapes, buffer
// lengths, targets inside the vocabulary), exported so that the GPU
// kernels give the same errors in the same words.
func CheckLogProbArgs(logits []float32, n, v int, targets []int32, logp, lse, ent []float32) error {
	if n < 0 || v < 1 {
		return fmt.Errorf("token log-prob: bad shape n=%d v=%d", n, v)
	}
	if len(logits) < n*v || len(targets) < n || len(logp) < n || len(lse) < n || (ent != nil && len(ent) < n) {
		return fmt.Errorf("token log-prob: buffers too short for n=%d v=%d", n, v)
	}
	return checkTargets(targets[:n], v)
}

// CheckLogProbBackwardArgs is TokenLogProbBackward's argument check,
// exported for the GPU kernels.
func CheckLogProbBackwardArgs(logits []float32, n, v int, targets []int32, lse, ent, gLogp, gEnt, dlogits []float32) error {
	if n < 0 || v < 1 {
		return fmt.Errorf("token log-prob backward: bad shape n=%d v=%d", n, v)
	}
	if len(logits) < n*v || len(targets) < n || len(lse) < n || len(gLogp) < n || len(dlogits) < n*v {
		return fmt.Errorf("token log-prob backward: buffers too short for n=%d v=%d", n, v)
	}
	if gEnt != nil && (len(gEnt) < n || len(ent) < n) {
		return fmt.Errorf("token log-prob backward: entropy gradient needs ent and gEnt of length %d", n)
	}
	return checkTargets(targets[:n], v)
}

func checkTargets(targets []int32, v int) error {
	for i, y := range targets {
		if y < 0 || int(y) >= v {
			return fmt.Errorf("token log-prob: target %d at row %d is outside the vocabulary [0, %d)", y, i, v)
		}
	}
	return nil
}

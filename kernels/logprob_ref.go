package kernels

import (
	"fmt"
	"math"
)

// TokenLogProbRef is the reference forward of the fused token log-prob:
// for logits z (n rows of v, row-major) and targets y (n),
//
//	logp[i] = z[i,y[i]] − lse[i],   lse[i] = log Σ_j exp(z[i,j])
//	ent[i]  = −Σ_j p[i,j] log p[i,j]   (only when ent != nil)
//
// It is a plain loop with float64 accumulation, written to be read; the fast
// path TokenLogProb is tested against it. Targets out of [0, v) are an error
// returned before any output is written.
func TokenLogProbRef(logits []float32, n, v int, targets []int32, logp, lse, ent []float32) error {
	if err := checkLogProbArgs(logits, n, v, targets, logp, lse, ent); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		row := logits[i*v : (i+1)*v]
		m := math.Inf(-1)
		for _, z := range row {
			m = math.Max(m, float64(z))
		}
		s := 0.0
		for _, z := range row {
			s += math.Exp(float64(z) - m)
		}
		l := m + math.Log(s)
		lse[i] = float32(l)
		logp[i] = float32(float64(row[targets[i]]) - l)
		if ent != nil {
			h := 0.0
			for _, z := range row {
				lp := float64(z) - l
				if p := math.Exp(lp); p > 0 {
					h -= p * lp
				}
			}
			ent[i] = float32(h)
		}
	}
	return nil
}

// TokenLogProbBackwardRef is the reference backward. Given the upstream
// gradients gLogp (n) and, optionally, gEnt (n; nil for none), it writes
//
//	dz[i,j] = gLogp[i]·(1[j=y[i]] − p[i,j]) − gEnt[i]·p[i,j]·(log p[i,j] + H[i])
//
// into dlogits, recomputing p from the saved lse (and H from ent when gEnt is
// given). With accumulate it adds to dlogits instead of overwriting it.
func TokenLogProbBackwardRef(logits []float32, n, v int, targets []int32, lse, ent, gLogp, gEnt, dlogits []float32, accumulate bool) error {
	if err := checkLogProbBackwardArgs(logits, n, v, targets, lse, ent, gLogp, gEnt, dlogits); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		row := logits[i*v : (i+1)*v]
		drow := dlogits[i*v : (i+1)*v]
		for j, z := range row {
			lp := float64(z) - float64(lse[i])
			p := math.Exp(lp)
			d := -float64(gLogp[i]) * p
			if j == int(targets[i]) {
				d += float64(gLogp[i])
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

func checkLogProbArgs(logits []float32, n, v int, targets []int32, logp, lse, ent []float32) error {
	if n < 0 || v < 1 {
		return fmt.Errorf("token log-prob: bad shape n=%d v=%d", n, v)
	}
	if len(logits) < n*v || len(targets) < n || len(logp) < n || len(lse) < n || (ent != nil && len(ent) < n) {
		return fmt.Errorf("token log-prob: buffers too short for n=%d v=%d", n, v)
	}
	return checkTargets(targets[:n], v)
}

func checkLogProbBackwardArgs(logits []float32, n, v int, targets []int32, lse, ent, gLogp, gEnt, dlogits []float32) error {
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

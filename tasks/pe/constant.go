package pe

import (
	"fmt"
	"math"

	"arew/tasks"
)

// BestConstant searches every guess the agent can state — all L^D level
// vectors, one per direction (those whose entries have greatest common
// divisor 1; the zero vector is not a guess) — for the one that succeeds
// (cos > Threshold) on the most of the first n instances of split, ignoring
// all replies. Ties keep the first vector in lexicographic order. It returns
// the guess as its tokens' words and its success rate.
func (t *Task) BestConstant(split tasks.Split, n int) (string, float64, error) {
	g, rate, err := t.bestConstant(split, n)
	if err != nil {
		return "", 0, err
	}
	return t.vocab.Decode(t.EncodeGuess(g)), rate, nil
}

func (t *Task) bestConstant(split tasks.Split, n int) ([]int, float64, error) {
	if n < 1 {
		return nil, 0, fmt.Errorf("pe best constant: n = %d, want ≥ 1", n)
	}
	d := t.cfg.Dims
	// The score of a constant guess depends only on w*, which has its own
	// instance stream: no need to draw the tables.
	truths := make([]float64, 0, n*d)
	norms := make([]float64, n) // ‖w*‖², summed as cosine sums it
	for i := 0; i < n; i++ {
		ti, err := t.truthIndex(split, i)
		if err != nil {
			return nil, 0, fmt.Errorf("pe best constant: %w", err)
		}
		w := t.parts.at(ti)
		for _, x := range w {
			norms[i] += x * x
		}
		truths = append(truths, w...)
	}
	L := t.cfg.GuessLevels
	g := make([]int, d)
	var best []int
	bestCount := -1
	for {
		if primitive(g) {
			// The same sums in the same order as cosine, so the count
			// matches what an episode scores to the last bit.
			gf := toFloat(g)
			gg := 0.0
			for _, x := range gf {
				gg += x * x
			}
			count := 0
			for i := 0; i < n; i++ {
				w := truths[i*d : (i+1)*d]
				dot := 0.0
				for k, x := range gf {
					dot += x * w[k]
				}
				if dot/math.Sqrt(gg*norms[i]) > t.cfg.Threshold {
					count++
				}
			}
			if count > bestCount {
				best, bestCount = append([]int(nil), g...), count
			}
		}
		// Next vector in lexicographic order (the last entry moves fastest).
		k := d - 1
		for k >= 0 && g[k] == L-1 {
			g[k] = 0
			k--
		}
		if k < 0 {
			break
		}
		g[k]++
	}
	return best, float64(bestCount) / float64(n), nil
}

// primitive reports whether g is non-zero with gcd 1: the one representative
// of its direction among the level vectors.
func primitive(g []int) bool {
	d := 0
	for _, x := range g {
		d = gcd(d, x)
	}
	return d == 1
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// constantGuess is the best constant guess on the train split, computed once
// per task for the "constant" policy (constantTrainN instances).
func (t *Task) constantGuess() ([]int, error) {
	t.constOnce.Do(func() {
		t.constant, _, t.constErr = t.bestConstant(tasks.Train, constantTrainN)
	})
	return t.constant, t.constErr
}

const constantTrainN = 1000

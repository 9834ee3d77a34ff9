package kernels

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The Python client's AREW correction (cmd/envserver/python/arew_env/advantages.py,
// arew_correction) must give what MarginCorrection gives. marginFixture is
// what its test reads: batches laid out as verl lays them (B rows of T
// response tokens, each assistant turn a run of 1s in the response mask,
// padding 0), per row the critiques of its turns, the advantages before and
// after MarginCorrection (accumulate: Â = A + λu) in each mode.
const marginFixture = "testdata/margin_cases.json"

type marginCase struct {
	Mode      string      `json:"mode"`
	Lambda    float64     `json:"lambda"`
	Mask      [][]int     `json:"response_mask"`
	Critiques [][]int8    `json:"critiques"`
	Adv       [][]float32 `json:"advantages"`
	Want      [][]float32 `json:"expected"`
}

// marginCases draws the fixture's batches: rows of random turns (1 to 6
// agent tokens each) separated by observation runs, critiques in
// {−1, 0, +1} (some rows one-sided, some without turns), random
// advantages, and λ from 0.25 to 3.
func marginCases() []marginCase {
	rng := rand.New(rand.NewPCG(23, 5))
	var out []marginCase
	for i := range 16 {
		mode := allModes[i%len(allModes)]
		const b, t = 4, 32
		c := marginCase{Mode: mode.String(), Lambda: 0.25 * float64(1+rng.IntN(12))}
		for r := range b {
			mask := make([]int, t)
			crit := []int8{}
			pos := rng.IntN(3)
			for pos < t-1 && !(r == 3 && i%3 == 0) { // every third batch has an empty last row
				n := 1 + rng.IntN(6)
				for j := pos; j < min(pos+n, t); j++ {
					mask[j] = 1
				}
				z := int8(rng.IntN(3) - 1)
				if r == 2 {
					z = int8(rng.IntN(2)) // one-sided: no correction
				}
				crit = append(crit, z)
				pos += n + 1 + rng.IntN(4)
			}
			adv := make([]float32, t)
			for j := range adv {
				adv[j] = float32(rng.NormFloat64())
			}
			c.Mask, c.Critiques, c.Adv = append(c.Mask, mask), append(c.Critiques, crit), append(c.Adv, adv)
		}
		c.Want = marginOf(c, mode)
		out = append(out, c)
	}
	return out
}

// marginOf runs MarginCorrection on the case: the rows packed one after
// another, each run of 1s a step.
func marginOf(c marginCase, mode MarginMode) [][]float32 {
	p := Packed{Offsets: []int32{0}}
	var steps Steps
	steps.Offsets = []int32{0}
	var flat []float32
	for r, mask := range c.Mask {
		base := int32(len(p.Mask))
		s := 0
		for j := 0; j < len(mask); j++ {
			if mask[j] == 1 && (j == 0 || mask[j-1] == 0) {
				end := j
				for end < len(mask) && mask[end] == 1 {
					end++
				}
				steps.Start = append(steps.Start, base+int32(j))
				steps.End = append(steps.End, base+int32(end))
				steps.Critique = append(steps.Critique, c.Critiques[r][s])
				s++
			}
		}
		for _, m := range mask {
			p.Mask = append(p.Mask, uint8(m))
		}
		p.Offsets = append(p.Offsets, int32(len(p.Mask)))
		steps.Offsets = append(steps.Offsets, int32(len(steps.Critique)))
		flat = append(flat, c.Adv[r]...)
	}
	if err := MarginCorrection(p, steps, mode, c.Lambda, flat, true); err != nil {
		panic(err)
	}
	want := make([][]float32, len(c.Mask))
	for r := range want {
		want[r] = flat[r*len(c.Mask[r]) : (r+1)*len(c.Mask[r])]
	}
	return want
}

// TestMarginFixture: the committed fixture is what MarginCorrection
// computes now. AREW_UPDATE_FIXTURES=1 rewrites it.
func TestMarginFixture(t *testing.T) {
	cases := marginCases()
	got, err := json.Marshal(cases)
	require.NoError(t, err)
	if os.Getenv("AREW_UPDATE_FIXTURES") == "1" {
		require.NoError(t, os.MkdirAll(filepath.Dir(marginFixture), 0o755))
		require.NoError(t, os.WriteFile(marginFixture, append(got, '\n'), 0o644))
	}
	want, err := os.ReadFile(marginFixture)
	require.NoError(t, err, "run AREW_UPDATE_FIXTURES=1 go test ./kernels -run TestMarginFixture")
	require.JSONEq(t, string(want), string(got), "%s is stale: AREW_UPDATE_FIXTURES=1 go test ./kernels -run TestMarginFixture", marginFixture)
}

//go:build gpu

package cuda

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/kernels"
)

// randomBatch is B trajectories of 0 to maxLen tokens: a prompt of
// observation tokens, then turns of agent tokens (each turn a critiqued
// step, z drawn from {−1, 0, +1}) separated by observation replies. Some
// steps hold no agent token; some trajectories are one-sided.
func randomBatch(rng *rand.Rand, b, maxLen int) (kernels.Packed, kernels.Steps) {
	offsets := []int32{0}
	var mask []uint8
	steps := kernels.Steps{Offsets: []int32{0}}
	for range b {
		n := rng.IntN(maxLen + 1)
		lo := len(mask)
		t := 0
		for t < n {
			obs := min(rng.IntN(6), n-t) // an observation run
			for range obs {
				mask = append(mask, 0)
			}
			t += obs
			if t == n {
				break
			}
			span := 1 + min(rng.IntN(12), n-t-1)
			start := lo + t
			for range span {
				m := uint8(1)
				if rng.IntN(8) == 0 {
					m = 0 // an observation token inside a step: not part of it
				}
				mask = append(mask, m)
			}
			t += span
			steps.Start = append(steps.Start, int32(start))
			steps.End = append(steps.End, int32(start+span))
			steps.Critique = append(steps.Critique, int8(rng.IntN(3)-1))
		}
		offsets = append(offsets, int32(len(mask)))
		steps.Offsets = append(steps.Offsets, int32(len(steps.Critique)))
	}
	return kernels.Packed{Offsets: offsets, Mask: mask}, steps
}

var batchShapes = []struct {
	name      string
	b, maxLen int
}{{"empty", 0, 0}, {"one_token", 1, 1}, {"small", 7, 40}, {"many", 300, 90}, {"long", 5, 2000}}

func TestMarginCorrectionMatchesRef(t *testing.T) {
	modes := []kernels.MarginMode{kernels.MarginStep, kernels.MarginStepSpread, kernels.MarginMinorityFixed, kernels.MarginAbsSum}
	for _, ver := range []Version{Plain, Fast, V3} {
		for _, s := range batchShapes {
			for _, mode := range modes {
				for _, acc := range []bool{false, true} {
					t.Run(fmt.Sprintf("v%d/%s/%v/acc=%v", ver, s.name, mode, acc), func(t *testing.T) {
						rng := rand.New(rand.NewPCG(uint64(s.b), uint64(mode)))
						p, steps := randomBatch(rng, s.b, s.maxLen)
						want := make([]float32, p.NumTokens())
						for i := range want {
							want[i] = float32(rng.NormFloat64())
						}
						got := append([]float32(nil), want...)
						require.NoError(t, kernels.MarginCorrectionRef(p, steps, mode, 0.7, want, acc))
						require.NoError(t, dev.marginCorrection(ver, p, steps, mode, 0.7, got, acc))
						assertClose(t, "out", want, got)
					})
				}
			}
		}
	}
}

func TestGAEMatchesRef(t *testing.T) {
	for _, ver := range []Version{Plain, Fast} {
		for _, s := range batchShapes {
			for _, gl := range [][2]float64{{0.99, 0.95}, {1, 1}, {0.5, 0}, {0, 0.9}} {
				t.Run(fmt.Sprintf("v%d/%s/g=%v/l=%v", ver, s.name, gl[0], gl[1]), func(t *testing.T) {
					rng := rand.New(rand.NewPCG(uint64(s.b), 11))
					p, _ := randomBatch(rng, s.b, s.maxLen)
					nt := p.NumTokens()
					r, v := make([]float32, nt), make([]float32, nt)
					for i := range r {
						v[i] = float32(rng.NormFloat64())
						if p.Mask[i] == 1 && rng.IntN(4) == 0 {
							r[i] = float32(rng.NormFloat64())
						}
					}
					wa, wr := make([]float32, nt), make([]float32, nt)
					ga, gr := make([]float32, nt), make([]float32, nt)
					require.NoError(t, kernels.GAERef(p, r, v, gl[0], gl[1], wa, wr))
					require.NoError(t, dev.gae(ver, p, r, v, gl[0], gl[1], ga, gr))
					assertClose(t, "adv", wa, ga)
					assertClose(t, "ret", wr, gr)
				})
			}
		}
	}
}

func TestGroupBaselineMatchesRef(t *testing.T) {
	for _, ver := range []Version{Plain, Fast} {
		for _, s := range batchShapes {
			for _, norm := range []kernels.GroupNorm{kernels.GRPONorm, kernels.DrGRPONorm} {
				t.Run(fmt.Sprintf("v%d/%s/std=%v", ver, s.name, norm.Std), func(t *testing.T) {
					rng := rand.New(rand.NewPCG(uint64(s.b), 5))
					p, _ := randomBatch(rng, s.b, s.maxLen)
					scores, groups := make([]float32, s.b), make([]int32, s.b)
					for i := range scores {
						scores[i] = float32(rng.IntN(3)) // ties: whole groups with σ = 0
						groups[i] = int32(rng.IntN(max(s.b/4, 1)))
					}
					want, got := make([]float32, p.NumTokens()), make([]float32, p.NumTokens())
					require.NoError(t, kernels.GroupBaselineRef(p, scores, groups, norm, want))
					require.NoError(t, dev.groupBaseline(ver, p, scores, groups, norm, got))
					assertClose(t, "out", want, got)
				})
			}
		}
	}
}

func TestAdvantageBadInput(t *testing.T) {
	p := kernels.Packed{Offsets: []int32{0, 3}, Mask: []uint8{0, 1, 1}}
	steps := kernels.Steps{Offsets: []int32{0, 1}, Start: []int32{1}, End: []int32{3}, Critique: []int8{1}}
	out := []float32{5, 5, 5}
	bad := kernels.Packed{Offsets: []int32{0, 4}, Mask: []uint8{0, 1, 1}}
	assert.ErrorContains(t, dev.MarginCorrection(bad, steps, kernels.MarginStep, 1, out, false), "offsets[B]")
	assert.ErrorContains(t, dev.MarginCorrection(p, steps, kernels.MarginMode(9), 1, out, false), "mode")
	assert.ErrorContains(t, dev.GAE(p, []float32{1, 0, 0}, out, 1, 1, out, out), "observation token 0")
	assert.ErrorContains(t, dev.GAE(p, out, out, 2, 1, out, out), "gamma")
	assert.ErrorContains(t, dev.GroupBaseline(p, []float32{1}, []int32{3}, kernels.GRPONorm, out), "group id 3")
	assert.Equal(t, []float32{5, 5, 5}, out, "nothing written")
	_, err := dev.UploadSteps(p, kernels.Steps{Offsets: []int32{0, 1}, Start: []int32{2}, End: []int32{1}, Critique: []int8{1}})
	assert.Error(t, err)
}

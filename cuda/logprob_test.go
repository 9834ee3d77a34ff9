//go:build gpu

package cuda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/kernels"
)

// logProbCase is one input of the parity tests.
type logProbCase struct {
	name string
	n, v int
	fill func(rng *rand.Rand, z []float32, n, v int)
}

func normalFill(scale float64) func(*rand.Rand, []float32, int, int) {
	return func(rng *rand.Rand, z []float32, _, _ int) {
		for i := range z {
			z[i] = float32(scale * rng.NormFloat64())
		}
	}
}

func uniformFill(lim float64) func(*rand.Rand, []float32, int, int) {
	return func(rng *rand.Rand, z []float32, _, _ int) {
		for i := range z {
			z[i] = float32(lim * (2*rng.Float64() - 1))
		}
	}
}

// specialFill puts the reference's special rows first: a NaN, a +Inf, all
// −Inf, one −Inf logit (the target); the rest are normal. (A row of
// −MaxFloat32 is left out: there the reference's float64 lse rounds back
// to the max itself, log v is lost and its entropy is 0, while the online
// form keeps H = log v, as the CPU fast path does.)
func specialFill(rng *rand.Rand, z []float32, n, v int) {
	normalFill(2)(rng, z, n, v)
	inf := float32(math.Inf(1))
	z[0*v+v/2] = float32(math.NaN())
	z[1*v+v/3] = inf
	for j := range v {
		z[2*v+j] = -inf
	}
	z[3*v+1] = -inf
}

var logProbCases = []logProbCase{
	{"random", 64, 1000, normalFill(3)},
	{"pm1e4", 16, 4096, uniformFill(1e4)},
	{"v_odd", 33, 1003, normalFill(2)},
	{"v7", 40, 7, normalFill(2)},
	{"v1", 5, 1, normalFill(2)},
	{"n1", 1, 32768, normalFill(4)},
	{"wide", 8, 32768, normalFill(4)},
	{"toy", 256, 128, normalFill(1)},
	{"special", 8, 257, specialFill},
	{"empty", 0, 50, normalFill(1)},
}

func makeLogProbInput(c logProbCase, seed uint64) ([]float32, []int32) {
	rng := rand.New(rand.NewPCG(seed, 7))
	z := make([]float32, c.n*c.v)
	c.fill(rng, z, c.n, c.v)
	y := make([]int32, c.n)
	for i := range y {
		y[i] = int32(rng.IntN(c.v))
	}
	if c.name == "special" {
		y[3] = 1 // the −Inf logit is the target: logp = −Inf
	}
	return z, y
}

func TestTokenLogProbMatchesRef(t *testing.T) {
	for _, ver := range []Version{Plain, Fast} {
		for _, c := range logProbCases {
			for _, withEnt := range []bool{false, true} {
				t.Run(fmt.Sprintf("v%d/%s/ent=%v", ver, c.name, withEnt), func(t *testing.T) {
					z, y := makeLogProbInput(c, 1)
					want := [3][]float32{make([]float32, c.n), make([]float32, c.n), nil}
					got := [3][]float32{make([]float32, c.n), make([]float32, c.n), nil}
					if withEnt {
						want[2], got[2] = make([]float32, c.n), make([]float32, c.n)
					}
					require.NoError(t, kernels.TokenLogProbRef(z, c.n, c.v, y, want[0], want[1], want[2]))
					require.NoError(t, dev.tokenLogProb(ver, z, c.n, c.v, y, got[0], got[1], got[2]))
					assertClose(t, "logp", want[0], got[0])
					assertClose(t, "lse", want[1], got[1])
					if withEnt {
						assertClose(t, "ent", want[2], got[2])
					}
				})
			}
		}
	}
}

func TestTokenLogProbBackwardMatchesRef(t *testing.T) {
	for _, ver := range []Version{Plain, Fast} {
		for _, c := range logProbCases {
			for _, mode := range []struct {
				ent, acc bool
			}{{false, false}, {true, false}, {false, true}, {true, true}} {
				t.Run(fmt.Sprintf("v%d/%s/ent=%v/acc=%v", ver, c.name, mode.ent, mode.acc), func(t *testing.T) {
					z, y := makeLogProbInput(c, 2)
					logp, lse, ent := make([]float32, c.n), make([]float32, c.n), make([]float32, c.n)
					require.NoError(t, kernels.TokenLogProbRef(z, c.n, c.v, y, logp, lse, ent))
					rng := rand.New(rand.NewPCG(3, 3))
					g, h := make([]float32, c.n), []float32(nil)
					for i := range g {
						g[i] = float32(rng.NormFloat64())
					}
					if mode.ent {
						h = make([]float32, c.n)
						for i := range h {
							h[i] = float32(rng.NormFloat64())
						}
					}
					want, got := make([]float32, c.n*c.v), make([]float32, c.n*c.v)
					for i := range want {
						want[i] = float32(rng.NormFloat64())
						got[i] = want[i]
					}
					require.NoError(t, kernels.TokenLogProbBackwardRef(z, c.n, c.v, y, lse, ent, g, h, want, mode.acc))
					require.NoError(t, dev.tokenLogProbBackward(ver, z, c.n, c.v, y, lse, ent, g, h, got, mode.acc))
					assertClose(t, "dlogits", want, got)
				})
			}
		}
	}
}

// TestTokenLogProbBackwardInPlace writes the gradient over the logits
// buffer itself, as llm.c's fused classifier does.
func TestTokenLogProbBackwardInPlace(t *testing.T) {
	for _, ver := range []Version{Plain, Fast} {
		for _, c := range logProbCases[:4] {
			t.Run(fmt.Sprintf("v%d/%s", ver, c.name), func(t *testing.T) {
				z, y := makeLogProbInput(c, 4)
				logp, lse, ent := make([]float32, c.n), make([]float32, c.n), make([]float32, c.n)
				require.NoError(t, kernels.TokenLogProbRef(z, c.n, c.v, y, logp, lse, ent))
				g := make([]float32, c.n)
				for i := range g {
					g[i] = 1 + float32(i%3)
				}
				want := make([]float32, c.n*c.v)
				require.NoError(t, kernels.TokenLogProbBackwardRef(z, c.n, c.v, y, lse, ent, g, g, want, false))

				var bs devBufs
				defer bs.free()
				zb, yb, lb := upload(&bs, dev, z), upload(&bs, dev, y), upload(&bs, dev, lse)
				eb, gb := upload(&bs, dev, ent), upload(&bs, dev, g)
				require.NoError(t, bs.err)
				require.NoError(t, dev.TokenLogProbBackwardOn(ver, zb, yb, lb, eb, gb, gb, zb, c.n, c.v, false))
				got := make([]float32, c.n*c.v)
				require.NoError(t, CopyFrom(got, zb))
				assertClose(t, "dlogits in place", want, got)
			})
		}
	}
}

func TestTokenLogProbBadInput(t *testing.T) {
	z := make([]float32, 4*10)
	out := []float32{7, 7, 7, 7}
	for _, c := range []struct {
		name    string
		n, v    int
		targets []int32
		want    string
	}{
		{"target too big", 4, 10, []int32{0, 1, 10, 2}, "outside the vocabulary"},
		{"negative target", 4, 10, []int32{0, -1, 0, 2}, "outside the vocabulary"},
		{"v zero", 4, 0, []int32{0, 0, 0, 0}, "bad shape"},
		{"too short", 5, 10, []int32{0, 0, 0, 0}, "too short"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := dev.TokenLogProb(z, c.n, c.v, c.targets, out, out, nil)
			assert.ErrorContains(t, err, c.want)
			assert.Equal(t, []float32{7, 7, 7, 7}, out, "nothing written")
			err = dev.TokenLogProbBackward(z, c.n, c.v, c.targets, out, nil, out, nil, z, false)
			assert.ErrorContains(t, err, c.want)
		})
	}
	_, err := dev.Alloc(-1)
	assert.Error(t, err)
	assert.ErrorContains(t, dev.TokenLogProbOn(3, nil, nil, nil, nil, nil, 1, 1), "version")
}

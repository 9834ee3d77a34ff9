package model

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The fused bias-and-GELU node gives the unfused graph's loss, outputs and
// every parameter gradient bit for bit, at one and two threads, on the
// tiny preset (MLP 64) and the small one (MLP 256: the assembly paths and
// the backward's column groups).
func TestFusedBiasGELUIsBitwiseUnfused(t *testing.T) {
	defer func(old bool) { fuseBiasGELU = old }(fuseBiasGELU)
	for _, preset := range []string{"tiny", "small"} {
		for _, procs := range []int{1, 2} {
			name := fmt.Sprintf("%s procs=%d", preset, procs)
			prev := runtime.GOMAXPROCS(procs)
			var runs [2][][]float32 // unfused, fused: loss, logp, values, then each gradient
			for k, fused := range []bool{false, true} {
				fuseBiasGELU = fused
				cfg, err := NewConfig(preset, 13, 40)
				require.NoError(t, err)
				cfg = cfg.WithValueHead()
				m := newRandomModel(t, cfg, 5, 0.2)
				g, _ := compiledGraph(t, m, 3, 37, rand.New(rand.NewPCG(5, 6)))
				require.NoError(t, g.Run())
				m.Params.ZeroGrad()
				require.NoError(t, g.AccumulateGrads())
				loss, err := g.Loss()
				require.NoError(t, err)
				runs[k] = append(runs[k], []float32{float32(loss)}, clone(Float32s(g.Logp)), clone(Float32s(g.Values)))
				for _, p := range m.Params.Params() {
					runs[k] = append(runs[k], clone(p.Grad))
				}
				g.Close()
			}
			runtime.GOMAXPROCS(prev)
			require.Len(t, runs[1], len(runs[0]))
			for i := range runs[0] {
				assert.Equal(t, runs[0][i], runs[1][i], "%s: output %d", name, i)
			}
		}
	}
}

func clone(x []float32) []float32 { return append([]float32(nil), x...) }

//go:build gpu

package engine

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTokenLogProbOpOnCUDAMatchesCPU builds the fused op with entropy once
// on the CPU and once on the GPU and compares logp, H and dloss/dlogits.
// It runs only on a GPU machine (a gpu-tagged binary exits without one).
func TestTokenLogProbOpOnCUDAMatchesCPU(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, tc := range []struct{ n, v int }{{1, 1}, {3, 7}, {16, 130}, {64, 1003}} {
		logits := randLogits(rng, tc.n, tc.v, 6)
		y := randTargets(rng, tc.n, tc.v)
		a, b := randWeights(rng, tc.n), randWeights(rng, tc.n)

		require.NoError(t, SetDevice(CPU))
		cpu := newFusedGraph(t, tc.n, tc.v, a, b)
		require.NoError(t, SetDevice(CUDA))
		gpu := newFusedGraph(t, tc.n, tc.v, a, b)
		require.NoError(t, SetDevice(CPU))
		assert.True(t, strings.Contains(gpu.logp.Op().String()+gpu.ent.Op().String()+opNames(gpu), "dev=cuda"))

		wl, we, wg, err := cpu.run(logits, y)
		require.NoError(t, err)
		gl, ge, gg, err := gpu.run(logits, y)
		require.NoError(t, err)
		assertClose(t, wl, gl, 1e-5, "logp")
		assertClose(t, we, ge, 1e-5, "entropy")
		assertClose(t, wg, gg, 1e-5, "dlogits")
	}
}

// opNames lists the ops of the graph that feeds lg.loss.
func opNames(lg *lpGraph) string {
	var sb strings.Builder
	for _, n := range lg.logp.Graph().AllNodes() {
		if n.Op() != nil {
			sb.WriteString(n.Op().String())
			sb.WriteByte(' ')
		}
	}
	return sb.String()
}

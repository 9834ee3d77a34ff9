//go:build !gpu

package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestSetDeviceCUDANeedsTheGPUTag: a default build asked for the GPU says
// which build tag it lacks, stays on the CPU, and the ops built afterwards
// still work there.
func TestSetDeviceCUDANeedsTheGPUTag(t *testing.T) {
	err := SetDevice(CUDA)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "-tags gpu")
	assert.Equal(t, CPU, CurrentDevice())

	g := G.NewGraph()
	logits := G.NewMatrix(g, tensor.Float32, G.WithShape(2, 3), G.WithName("logits"))
	targets := G.NewVector(g, tensor.Int32, G.WithShape(2), G.WithName("targets"))
	logp, err := TokenLogProb(logits, targets)
	require.NoError(t, err)
	assert.Equal(t, "TokenLogProb{ent=false}", logp.Op().String(), "a CPU op")
	m := G.NewTapeMachine(g)
	defer m.Close()
	require.NoError(t, G.Let(logits, dense([]float32{0, 0, 0, 1, 2, 3}, 2, 3)))
	require.NoError(t, G.Let(targets, tensor.New(tensor.WithShape(2), tensor.WithBacking([]int32{0, 2}))))
	require.NoError(t, m.RunAll())
	got := logp.Value().Data().([]float32)
	assert.InDelta(t, -1.0986123, got[0], 1e-6)
	assert.InDelta(t, -0.4076059, got[1], 1e-6)
}

package model

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	G "gorgonia.org/gorgonia"
)

// The whole model's training graph run by the engine's Machine (which
// keeps its outputs between runs and executes the program itself) gives,
// run after run with new inputs and weights, bitwise the outputs, loss and
// gradients of a fresh gorgonia tape machine on the same graph — the
// reference it replaces. Then Forward's machine, on the same inputs,
// gives bitwise Run's outputs.
func TestGraphRunMatchesTapeMachine(t *testing.T) {
	for _, c := range []struct {
		name      string
		lm, value bool
	}{{"policy with value head", true, true}, {"critic", false, true}} {
		t.Run(c.name, func(t *testing.T) {
			m := newRandomModel(t, tinyConfig(t, 17, 8, c.lm, c.value), 31, 0.3)
			rng := rand.New(rand.NewPCG(31, 2))
			g, _ := compiledGraph(t, m, 3, 8, rng)
			defer g.Close()
			require.True(t, g.train.RunsItself(), "the model's program is not one the engine runs itself")
			snapshot := func() [][]float32 {
				var r [][]float32
				for _, n := range []*G.Node{g.Logits, g.Logp, g.Entropy, g.Values} {
					r = append(r, append([]float32(nil), Float32s(n)...))
				}
				loss, err := g.Loss()
				require.NoError(t, err)
				r = append(r, []float32{float32(loss)})
				m.Params.ZeroGrad()
				require.NoError(t, g.AccumulateGrads())
				for _, p := range m.Params.Params() {
					r = append(r, append([]float32(nil), p.Grad...))
				}
				return r
			}
			for run := range 3 {
				require.NoError(t, g.Run())
				got := snapshot()
				fresh := G.NewTapeMachine(g.G)
				require.NoError(t, fresh.RunAll())
				want := snapshot()
				require.NoError(t, fresh.Close())
				assert.Equal(t, want, got, "run %d", run)
				require.NoError(t, g.Forward())
				assert.Equal(t, got[:4], snapshot()[:4], "forward, run %d", run)
				// New tokens and weights for the next run.
				tokens, targets, _ := paddedBatch(rng, g.Batch, g.SeqLen, m.Config.Vocab)
				if !c.lm {
					targets = nil
				}
				require.NoError(t, g.SetInputs(tokens, targets))
				for _, p := range m.Params.Params() {
					for i := range p.Data() {
						p.Data()[i] += float32(0.01 * rng.NormFloat64())
					}
				}
			}
		})
	}
}

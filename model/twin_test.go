package model

import (
	"flag"
	"math"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/engine"
	"arew/optim"
)

// The outside oracle, as llm.c does: bench/torch/model.py is the same
// network in PyTorch and bench/torch/make_fixtures.py wrote, once, what it
// computes from the weights in testdata/twin_weights.safetensors (written
// by Go, below): logits, values, loss, every gradient, and the losses of 10
// AdamW steps. Regenerate both with
//
//	go test ./model -run TestWriteTwinWeights -update-twin
//	/usr/bin/python3 bench/torch/make_fixtures.py

var updateTwin = flag.Bool("update-twin", false, "rewrite testdata/twin_weights.safetensors")

const (
	twinWeights  = "testdata/twin_weights.safetensors"
	twinFixtures = "testdata/twin_fixtures.safetensors"
)

// TestWriteTwinWeights writes the twin's weights: the tiny preset (vocab 13,
// context 12) with both heads, far from the init so every term matters.
func TestWriteTwinWeights(t *testing.T) {
	if !*updateTwin {
		t.Skip("run with -update-twin to rewrite " + twinWeights)
	}
	m := newRandomModel(t, tinyConfig(t, 13, 12, true, true), 2024, 0.3)
	require.NoError(t, m.Save(filepath.FromSlash(twinWeights), map[string]string{"written_by": "model.TestWriteTwinWeights"}))
}

func TestMatchesPyTorchTwin(t *testing.T) {
	m, _, err := Load(filepath.FromSlash(twinWeights))
	require.NoError(t, err)
	ts, meta, err := engine.LoadSafetensors(filepath.FromSlash(twinFixtures))
	require.NoError(t, err)
	fx := map[string]engine.NamedTensor{}
	for _, x := range ts {
		fx[x.Name] = x
	}
	f32 := func(name string) []float32 {
		x, ok := fx[name]
		require.True(t, ok, "fixture %q", name)
		return x.Data.([]float32)
	}
	num := func(key string) float64 {
		v, err := strconv.ParseFloat(meta[key], 64)
		require.NoError(t, err, key)
		return v
	}
	// The twin read exactly the weights Go wrote.
	for _, p := range m.Params.Params() {
		assert.Equal(t, p.Data(), f32("param/"+p.Name), p.Name)
	}

	shape := fx["tokens"].Shape
	B, T := shape[0], shape[1]
	g, err := m.NewGraph(B, T)
	require.NoError(t, err)
	defer g.Close()
	require.NoError(t, g.SetInputs(fx["tokens"].Data.([]int32), fx["targets"].Data.([]int32)))
	loss := testLoss{mask: f32("mask"), returns: f32("returns"), valueCoef: num("value_coef")}
	ln, err := loss.build(g)
	require.NoError(t, err)
	require.NoError(t, g.Compile(ln))
	require.NoError(t, g.Run())
	m.Params.ZeroGrad()
	require.NoError(t, g.AccumulateGrads())

	t.Logf("max |logits − torch| %.2e, max |values − torch| %.2e",
		maxAbsDiff(f32("logits"), Float32s(g.Logits)), maxAbsDiff(f32("values"), Float32s(g.Values)))
	assert.Less(t, maxAbsDiff(f32("logits"), Float32s(g.Logits)), 1e-4, "logits")
	assert.Less(t, maxAbsDiff(f32("values"), Float32s(g.Values)), 1e-4, "values")
	got, err := g.Loss()
	require.NoError(t, err)
	assert.InDelta(t, float64(f32("loss")[0]), got, 1e-5, "loss")
	worst := 0.0
	for _, p := range m.Params.Params() {
		ref := f32("grad/" + p.Name)
		for i, r := range ref {
			tol := 1e-4 + 1e-3*math.Abs(float64(r))
			d := math.Abs(float64(p.Grad[i]) - float64(r))
			worst = max(worst, d/tol)
			if !assert.LessOrEqual(t, d, tol, "grad %s[%d]: go %g torch %g", p.Name, i, p.Grad[i], r) {
				break
			}
		}
	}
	t.Logf("worst gradient error / tolerance %.3f", worst)

	opt, err := optim.NewAdamW(m.Params.Params(), optim.AdamWConfig{
		Beta1: num("beta1"), Beta2: num("beta2"), Eps: num("eps"), WeightDecay: num("weight_decay")})
	require.NoError(t, err)
	want := f32("adamw_losses")
	worstLoss := 0.0
	for step, w := range want {
		require.NoError(t, g.Run())
		l, err := g.Loss()
		require.NoError(t, err)
		assert.InDelta(t, float64(w), l, 1e-4, "loss before AdamW step %d", step+1)
		worstLoss = max(worstLoss, math.Abs(float64(w)-l))
		m.Params.ZeroGrad()
		require.NoError(t, g.AccumulateGrads())
		require.NoError(t, opt.Step(num("lr")))
	}
	t.Logf("10 AdamW steps: loss %.4f → %.4f, max |loss − torch| %.2e", want[0], want[len(want)-1], worstLoss)
	assert.Less(t, float64(want[len(want)-1]), float64(want[0])-0.1, "the fixture's 10 steps must move the loss")
}

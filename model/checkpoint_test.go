package model

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/engine"
)

// Save then Load rebuilds the same model: same config, bitwise-equal
// weights, bitwise-equal logits from the graph and from the decoder, and
// the extra metadata back.
func TestCheckpointRoundTrip(t *testing.T) {
	for _, cfg := range []Config{
		tinyConfig(t, 19, 12, true, true),
		tinyConfig(t, 19, 12, false, true),
	} {
		m := newRandomModel(t, cfg, 41, 0.3)
		path := filepath.Join(t.TempDir(), "m.safetensors")
		require.NoError(t, m.Save(path, map[string]string{"step": "17"}))
		r, extra, err := Load(path)
		require.NoError(t, err)
		assert.Equal(t, cfg, r.Config)
		assert.Equal(t, map[string]string{"step": "17"}, extra)
		for _, p := range m.Params.Params() {
			q, ok := r.Params.Get(p.Name)
			require.True(t, ok)
			assert.Equal(t, p.Data(), q.Data(), p.Name)
		}
		tokens := randomTokens(rand.New(rand.NewPCG(41, 1)), 2*12, 19)
		forward := func(m *Model) []float32 {
			g, err := m.NewGraph(2, 12)
			require.NoError(t, err)
			defer g.Close()
			var targets []int32
			if cfg.LMHead {
				targets = tokens
			}
			require.NoError(t, g.SetInputs(tokens, targets))
			require.NoError(t, g.Forward())
			out := append([]float32(nil), Float32s(g.Logits)...)
			return append(out, Float32s(g.Values)...)
		}
		assert.Equal(t, forward(m), forward(r), "graph outputs must be bitwise equal")
		if cfg.LMHead {
			decode := func(m *Model) []float32 {
				d, err := m.NewDecoder(1)
				require.NoError(t, err)
				l, err := d.Prefill(0, tokens[:12])
				require.NoError(t, err)
				return append([]float32(nil), l...)
			}
			assert.Equal(t, decode(m), decode(r))
		}
	}
}

func TestCheckpointErrors(t *testing.T) {
	dir := t.TempDir()
	cfg := tinyConfig(t, 13, 8, true, false)
	m := newRandomModel(t, cfg, 42, 0.3)
	good := filepath.Join(dir, "good.safetensors")
	require.NoError(t, m.Save(good, nil))
	cfgJSON, _ := json.Marshal(cfg)
	meta := map[string]string{MetaFormat: FormatName, MetaConfig: string(cfgJSON)}
	tensors := func() []engine.NamedTensor {
		var ts []engine.NamedTensor
		for _, p := range m.Params.Params() {
			ts = append(ts, engine.NamedTensor{Name: p.Name, Shape: p.Shape, Data: p.Data()})
		}
		return ts
	}
	write := func(name string, ts []engine.NamedTensor, meta map[string]string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, engine.SaveSafetensors(path, ts, meta))
		return path
	}

	raw, err := os.ReadFile(good)
	require.NoError(t, err)
	truncated := filepath.Join(dir, "truncated.safetensors")
	require.NoError(t, os.WriteFile(truncated, raw[:len(raw)-10], 0o644))

	wrongDtype := tensors()
	wrongDtype[3] = engine.NamedTensor{Name: wrongDtype[3].Name, Shape: wrongDtype[3].Shape, Data: make([]int32, len(wrongDtype[3].Data.([]float32)))}
	wrongShape := tensors()
	wrongShape[0].Shape = []int{wrongShape[0].Shape[1], wrongShape[0].Shape[0]}
	missing := tensors()[1:]
	bigger := cfg
	bigger.DModel = 64
	biggerJSON, _ := json.Marshal(bigger)

	for _, tc := range []struct {
		name, path string
		errMsg     []string
	}{
		{"truncated", truncated, []string{"truncated.safetensors"}},
		{"wrong dtype", write("dtype.safetensors", wrongDtype, meta), []string{`"h.0.ln_1.bias" is I32, want F32`}},
		{"wrong shape", write("shape.safetensors", wrongShape, meta), []string{`"wte" of shape [13 32] but the file's is [32 13]`}},
		{"missing tensor", write("missing.safetensors", missing, meta), []string{`no tensor "wte"`}},
		{"no metadata", write("nometa.safetensors", tensors(), nil), []string{"not a model checkpoint"}},
		{"config of another size", write("mismatch.safetensors", tensors(), map[string]string{MetaFormat: FormatName, MetaConfig: string(biggerJSON)}),
			[]string{`the config needs "wte" of shape [13 64] but the file's is [13 32]`}},
		{"bad config JSON", write("badjson.safetensors", tensors(), map[string]string{MetaFormat: FormatName, MetaConfig: `{"vocab": 13, "colour": 1}`}),
			[]string{"unknown field"}},
		{"invalid config", write("invalid.safetensors", tensors(), map[string]string{MetaFormat: FormatName, MetaConfig: `{"vocab": 13}`}),
			[]string{"context must be"}},
		{"no file", filepath.Join(dir, "absent.safetensors"), []string{"absent.safetensors"}},
	} {
		_, _, err := Load(tc.path)
		require.Error(t, err, tc.name)
		for _, msg := range tc.errMsg {
			assert.ErrorContains(t, err, msg, tc.name)
		}
	}

	// LoadWeights wants the model's own config and leaves it unchanged otherwise.
	other := newRandomModel(t, tinyConfig(t, 13, 8, true, true), 43, 0.3)
	before := append([]float32(nil), other.Params.Params()[0].Data()...)
	_, err = other.LoadWeights(good)
	assert.ErrorContains(t, err, "config mismatch")
	assert.Equal(t, before, other.Params.Params()[0].Data())
	same := newRandomModel(t, cfg, 44, 0.3)
	_, err = same.LoadWeights(good)
	require.NoError(t, err)
	assert.Equal(t, m.Params.Params()[0].Data(), same.Params.Params()[0].Data())

	assert.ErrorContains(t, m.Save(filepath.Join(dir, "x.safetensors"), map[string]string{MetaConfig: "{}"}), "reserved")
}

package model

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/engine"
)

// paramTensors are m's parameters as tensors to write.
func paramTensors(m *Model) []engine.NamedTensor {
	var ts []engine.NamedTensor
	for _, p := range m.Params.Params() {
		ts = append(ts, engine.NamedTensor{Name: p.Name, Shape: p.Shape, Data: append([]float32(nil), p.Data()...)})
	}
	return ts
}

// A small file whose model_config claims a huge model is refused before
// the model is built: Load allocates about the file's size, not the
// config's (context 1e9 would be 128 GB of position embeddings).
func TestLoadRefusesAConfigTheFileDoesNotHold(t *testing.T) {
	dir := t.TempDir()
	cfg := tinyConfig(t, 13, 8, true, false)
	m := newRandomModel(t, cfg, 42, 0.3)
	claims := map[string]func(*Config){
		"context 1e9":   func(c *Config) { c.Context = 1e9 },
		"vocab 1e12":    func(c *Config) { c.Vocab = 1e12 },
		"d_model 2^40":  func(c *Config) { c.DModel, c.Heads = 1<<40, 1 },
		"mlp 1e15":      func(c *Config) { c.MLP = 1e15 },
		"layers 1e9":    func(c *Config) { c.Layers = 1e9 },
		"layers 3 of 2": func(c *Config) { c.Layers = 3 },
		"value head":    func(c *Config) { c.ValueHead = true },
	}
	for name, claim := range claims {
		t.Run(name, func(t *testing.T) {
			c := cfg
			claim(&c)
			require.NoError(t, c.Validate())
			js, err := json.Marshal(c)
			require.NoError(t, err)
			path := filepath.Join(dir, "claim.safetensors")
			require.NoError(t, engine.SaveSafetensors(path, paramTensors(m), map[string]string{MetaFormat: FormatName, MetaConfig: string(js)}))
			st, err := os.Stat(path)
			require.NoError(t, err)

			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, _, err = Load(path)
			runtime.ReadMemStats(&after)
			require.Error(t, err)
			assert.ErrorContains(t, err, "claim.safetensors")
			assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(20*st.Size()+1<<20), "allocated in proportion to the file")

			if name == "layers 3 of 2" || name == "value head" { // small enough to build
				same := newRandomModel(t, c, 1, 0.3)
				_, err = same.LoadWeights(path)
				assert.Error(t, err)
			}
		})
	}
}

// Weights holding a NaN or ±Inf are never written (the old file stays)
// and never read (Load, LoadWeights: so -init refuses them).
func TestCheckpointsAreFinite(t *testing.T) {
	dir := t.TempDir()
	cfg := tinyConfig(t, 13, 8, true, true)
	m := newRandomModel(t, cfg, 42, 0.3)
	path := filepath.Join(dir, "m.safetensors")
	require.NoError(t, m.Save(path, nil))
	good, err := os.ReadFile(path)
	require.NoError(t, err)
	js, err := json.Marshal(cfg)
	require.NoError(t, err)
	meta := map[string]string{MetaFormat: FormatName, MetaConfig: string(js)}

	for name, v := range map[string]float32{"NaN": float32(math.NaN()), "+Inf": float32(math.Inf(1)), "-Inf": float32(math.Inf(-1))} {
		t.Run(name, func(t *testing.T) {
			w := m.Params.Params()[3].Data()
			old := w[1]
			w[1] = v
			err := m.Save(path, nil)
			w[1] = old
			require.Error(t, err)
			assert.ErrorContains(t, err, "non-finite")
			assert.ErrorContains(t, err, m.Params.Params()[3].Name)
			now, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, good, now, "the last good checkpoint is kept")

			ts := paramTensors(m)
			ts[len(ts)-1].Data.([]float32)[0] = v
			bad := filepath.Join(dir, "bad.safetensors")
			require.NoError(t, engine.SaveSafetensors(bad, ts, meta))
			_, _, err = Load(bad)
			assert.ErrorContains(t, err, "non-finite")
			other := newRandomModel(t, cfg, 7, 0.3)
			before := append([]float32(nil), other.Params.Params()[0].Data()...)
			_, err = other.LoadWeights(bad)
			assert.ErrorContains(t, err, "non-finite")
			assert.Equal(t, before, other.Params.Params()[0].Data(), "unchanged on error")
		})
	}
}

package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"arew/engine"
)

// Checkpoint metadata keys reserved by the model (doc.go, "Checkpoint").
const (
	MetaFormat = "format"       // always "arew.model/1"
	MetaConfig = "model_config" // the Config as JSON
	FormatName = "arew.model/1"
)

// Save writes the model's parameters to path as a safetensors file (one F32
// tensor per parameter, named and laid out as in doc.go), with the Config
// as JSON in the metadata and the caller's extra string pairs (a run name,
// a step; the two reserved keys are refused). The write is atomic: path
// holds the old file or the complete new one. Weights holding a NaN or
// ±Inf are refused (engine.SaveParams) and path is left as it was.
func (m *Model) Save(path string, extra map[string]string) error {
	cfg, err := json.Marshal(m.Config)
	if err != nil {
		return fmt.Errorf("save model %s: %w", path, err)
	}
	meta := map[string]string{MetaFormat: FormatName, MetaConfig: string(cfg)}
	for k, v := range extra {
		if _, reserved := meta[k]; reserved {
			return fmt.Errorf("save model %s: metadata key %q is reserved", path, k)
		}
		meta[k] = v
	}
	if err := engine.SaveParams(m.Params, path, meta); err != nil {
		return fmt.Errorf("save model: %w", err)
	}
	return nil
}

// Load reads a checkpoint written by Save: it rebuilds the model from the
// Config in the metadata and fills it from the tensors, which must be
// exactly that config's parameters (every name, F32, every shape), or it
// returns an error listing every difference. The file is hostile until
// proven otherwise: the Config's sizes are checked against the tensors the
// file holds before the model is built (checkTensors), so a small file
// claiming a huge config is refused without allocating it, and weights
// holding a NaN or ±Inf are refused. The extra metadata is returned
// without the reserved keys.
func Load(path string) (*Model, map[string]string, error) {
	tensors, meta, err := engine.LoadSafetensors(path)
	if err != nil {
		return nil, nil, fmt.Errorf("load model: %w", err)
	}
	return fromTensors(path, tensors, meta)
}

// LoadBytes is Load of a checkpoint held in memory (an embedded file);
// name is what errors call it.
func LoadBytes(name string, data []byte) (*Model, map[string]string, error) {
	tensors, meta, err := engine.ReadSafetensors(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, nil, fmt.Errorf("load model %s: %w", name, err)
	}
	return fromTensors(name, tensors, meta)
}

// fromTensors rebuilds a model from a checkpoint's tensors and metadata.
func fromTensors(path string, tensors []engine.NamedTensor, meta map[string]string) (*Model, map[string]string, error) {
	cfg, err := configFromMeta(meta)
	if err != nil {
		return nil, nil, fmt.Errorf("load model %s: %w", path, err)
	}
	if err := checkTensors(cfg, tensors); err != nil {
		return nil, nil, fmt.Errorf("load model %s: %w", path, err)
	}
	m, err := New(cfg, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("load model %s: %w", path, err)
	}
	if err := engine.SetParams(m.Params, tensors); err != nil {
		return nil, nil, fmt.Errorf("load model %s: the tensors do not match the config %s: %w", path, meta[MetaConfig], err)
	}
	return m, extraMeta(meta), nil
}

// LoadWeights reads a checkpoint into m (to resume, or to reset a policy to
// a reference), which must have the file's exact Config; m is unchanged on
// any error.
func (m *Model) LoadWeights(path string) (map[string]string, error) {
	tensors, meta, err := engine.LoadSafetensors(path)
	if err != nil {
		return nil, fmt.Errorf("load weights: %w", err)
	}
	cfg, err := configFromMeta(meta)
	if err != nil {
		return nil, fmt.Errorf("load weights %s: %w", path, err)
	}
	if cfg != m.Config {
		have, _ := json.Marshal(m.Config)
		return nil, fmt.Errorf("load weights %s: config mismatch: the file has %s, the model %s", path, meta[MetaConfig], have)
	}
	if err := checkTensors(cfg, tensors); err != nil {
		return nil, fmt.Errorf("load weights %s: %w", path, err)
	}
	if err := engine.SetParams(m.Params, tensors); err != nil {
		return nil, fmt.Errorf("load weights %s: %w", path, err)
	}
	return extraMeta(meta), nil
}

func configFromMeta(meta map[string]string) (Config, error) {
	if f := meta[MetaFormat]; f != FormatName {
		return Config{}, fmt.Errorf("metadata %q is %q, want %q (not a model checkpoint)", MetaFormat, f, FormatName)
	}
	raw, ok := meta[MetaConfig]
	if !ok {
		return Config{}, fmt.Errorf("no %q in the metadata", MetaConfig)
	}
	var cfg Config
	dec := json.NewDecoder(bytes.NewReader([]byte(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return Config{}, fmt.Errorf("metadata %q: %w", MetaConfig, err)
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, fmt.Errorf("metadata %q: %w", MetaConfig, err)
	}
	return cfg, nil
}

func extraMeta(meta map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range meta {
		if k != MetaFormat && k != MetaConfig {
			out[k] = v
		}
	}
	return out
}

// checkTensors checks, before anything the size of cfg is allocated, that
// the file's tensors can be cfg's parameters: the embeddings and the first
// block's matrices have cfg's shapes, there are tensors for cfg's blocks,
// the element counts add up to cfg.NumParams(), and every value is finite.
// The shape checks bound every factor of NumParams by the file's own size,
// so the count cannot overflow; SetParams then checks every name and shape.
func checkTensors(cfg Config, tensors []engine.NamedTensor) error {
	shapes := make(map[string][]int, len(tensors))
	total := 0
	for _, t := range tensors {
		shapes[t.Name] = t.Shape
		n := 1
		for _, d := range t.Shape {
			n *= d // the reader bounds each tensor by the file's size
		}
		total += n
	}
	C := cfg.DModel
	if cfg.Layers > len(tensors) {
		return fmt.Errorf("the config declares %d layers but the file holds only %d tensors", cfg.Layers, len(tensors))
	}
	want := []struct {
		name  string
		shape []int
	}{
		{NameTokenEmbedding, []int{cfg.Vocab, C}},
		{NamePositionEmbedding, []int{cfg.Context, C}},
		{Layer(0).AttnWeight, []int{C, 3 * C}},
		{Layer(0).FCWeight, []int{C, cfg.MLP}},
	}
	for _, w := range want {
		got, ok := shapes[w.name]
		if !ok {
			return fmt.Errorf("the file has no tensor %q, which the config needs", w.name)
		}
		if !slices.Equal(got, w.shape) {
			return fmt.Errorf("the config needs %q of shape %v but the file's is %v", w.name, w.shape, got)
		}
	}
	for l := range cfg.Layers {
		if _, ok := shapes[Layer(l).Norm1Weight]; !ok {
			return fmt.Errorf("the config declares %d layers but the file has no %q", cfg.Layers, Layer(l).Norm1Weight)
		}
	}
	if n := cfg.NumParams(); n != total {
		return fmt.Errorf("the config declares %d parameters but the file holds %d values", n, total)
	}
	if err := engine.CheckFinite(tensors); err != nil {
		return fmt.Errorf("non-finite weights: %w", err)
	}
	return nil
}

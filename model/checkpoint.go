package model

import (
	"bytes"
	"encoding/json"
	"fmt"

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
// holds the old file or the complete new one.
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
// returns an error listing every difference. The extra metadata is
// returned without the reserved keys.
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

package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// SaveParams writes every parameter of store, in its order, as an F32 tensor
// named after the parameter, to path (atomically, see SaveSafetensors). The
// parameters' memory is written as is: no copy. Weights holding a NaN or
// ±Inf are refused and nothing is written, so a diverged run never replaces
// a good checkpoint with a poisoned one.
func SaveParams(store *ParamStore, path string, meta map[string]string) error {
	if err := CheckParamsFinite(store); err != nil {
		return fmt.Errorf("save %s: refusing non-finite weights: %w", path, err)
	}
	ts := make([]NamedTensor, 0, len(store.Params()))
	for _, p := range store.Params() {
		ts = append(ts, NamedTensor{Name: p.Name, Shape: p.Shape, Data: p.Data()})
	}
	return SaveSafetensors(path, ts, meta)
}

// LoadParams reads path into the parameters of store (see SetParams) and
// returns the file's metadata. Weights holding a NaN or ±Inf are refused.
func LoadParams(store *ParamStore, path string) (map[string]string, error) {
	tensors, meta, err := LoadSafetensors(path)
	if err != nil {
		return nil, err
	}
	if err := CheckFinite(tensors); err != nil {
		return nil, fmt.Errorf("load params from %s: non-finite weights: %w", path, err)
	}
	if err := SetParams(store, tensors); err != nil {
		return nil, fmt.Errorf("load params from %s: %w", path, err)
	}
	return meta, nil
}

// SetParams copies tensors into the parameters of store. The tensors must
// be exactly the store's parameters — the same names, each F32 with the same
// shape — or nothing is changed and the error lists every difference.
func SetParams(store *ParamStore, tensors []NamedTensor) error {
	var problems []string
	inFile := make(map[string]NamedTensor, len(tensors))
	for _, t := range tensors {
		inFile[t.Name] = t
		p, ok := store.Get(t.Name)
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%q is in the file but not a parameter", t.Name))
		case t.DType() != "F32":
			problems = append(problems, fmt.Sprintf("%q is %s, want F32", t.Name, t.DType()))
		case !slices.Equal(t.Shape, p.Shape):
			problems = append(problems, fmt.Sprintf("%q has shape %v, want %v", t.Name, t.Shape, p.Shape))
		}
	}
	for _, p := range store.Params() {
		if _, ok := inFile[p.Name]; !ok {
			problems = append(problems, fmt.Sprintf("parameter %q is missing from the file", p.Name))
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	for _, p := range store.Params() {
		copy(p.Data(), inFile[p.Name].Data.([]float32))
	}
	return nil
}

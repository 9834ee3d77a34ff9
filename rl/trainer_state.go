package rl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strconv"

	"arew/engine"
	"arew/model"
	"arew/optim"
)

// The files of a trainer's checkpoint set (SaveState), beside the
// manifest. A trainer's state is exactly these: every random draw of an
// update comes from a generator derived afresh from (seed, stream,
// update) (derive), the instances an update plays and the
// learning rate are functions of the update, so the update counter stands
// for every RNG state, instance cursor and schedule position.
const (
	PolicyFile      = "policy.safetensors"       // the policy's weights
	CriticFile      = "critic.safetensors"       // the separate critic's, if any
	RefFile         = "ref.safetensors"          // the frozen KL reference, if KL is on
	PolicyOptimFile = "optim-policy.safetensors" // the actor's AdamW moments and step
	CriticOptimFile = "optim-critic.safetensors" // the separate critic's
	TrainerFile     = "trainer.json"             // the counters (trainerState)
)

const (
	optimStateFormat   = "arew.adamw/1"
	trainerStateFormat = "arew.trainer/1"
)

// trainerState is TrainerFile: what the trainer carries besides weights
// and moments.
type trainerState struct {
	Format string `json:"format"`
	Algo   Algo   `json:"algo"`
	Seed   uint64 `json:"seed"`
	Update int    `json:"update"` // updates done: the next update's index
	// SkippedInARow is the skip guard's count of consecutive skipped
	// optimiser steps, which runs across updates.
	SkippedInARow int `json:"skipped_in_a_row"`
}

// WriteState writes the files of the trainer's whole state into dir and
// returns their names: the weights (policy, separate critic, KL
// reference), both AdamW states and the counters, each atomically. info
// (a run name, a status) goes into every file's metadata. Non-finite
// weights or moments are refused. The run layer keeps these files as one
// checkpoint set (rl/run.SaveState: a manifest, an atomic replacement).
func (t *trainer) WriteState(dir string, info map[string]string) ([]string, error) {
	meta := func(role string) map[string]string {
		m := maps.Clone(info)
		if m == nil {
			m = map[string]string{}
		}
		m["update"], m["role"] = strconv.Itoa(t.update), role
		return m
	}
	models := []struct {
		file string
		m    *model.Model
	}{{PolicyFile, t.policy}, {CriticFile, t.critic}, {RefFile, t.ref}}
	var names []string
	for _, f := range models {
		if f.m == nil {
			continue
		}
		if err := f.m.Save(filepath.Join(dir, f.file), meta(f.file)); err != nil {
			return nil, err
		}
		names = append(names, f.file)
	}
	opts := []struct {
		file string
		o    *optim.AdamW
	}{{PolicyOptimFile, t.actorOpt}, {CriticOptimFile, t.critOpt}}
	for _, f := range opts {
		if f.o == nil {
			continue
		}
		if err := saveOptimState(f.o, filepath.Join(dir, f.file), meta(f.file)); err != nil {
			return nil, err
		}
		names = append(names, f.file)
	}
	st := trainerState{Format: trainerStateFormat, Algo: t.spec.algo, Seed: t.spec.seed, Update: t.update, SkippedInARow: t.guard.inARow}
	if err := writeJSONAtomic(filepath.Join(dir, TrainerFile), st); err != nil {
		return nil, err
	}
	return append(names, TrainerFile), nil
}

// writeJSONAtomic writes v as indented JSON to path, atomically: a
// checkpoint set's counters.
func writeJSONAtomic(path string, v any) error {
	err := engine.WriteFileAtomic(path, 0o644, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	})
	if err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return nil
}

// LoadState puts the trainer in the state of files (by name, as
// WriteState wrote them for a trainer of the same config into dir, and
// the run layer read them back for update): the next Update continues
// bitwise as the saved trainer's would have (TestResumeIsBitwise). The
// files must be exactly those this trainer has; every file is checked
// before anything is changed. On an error the trainer may be half
// restored: build a new one.
func (t *trainer) LoadState(dir string, update int, files map[string][]byte) error {
	var st trainerState
	if err := DecodeStrict(files[TrainerFile], &st); err != nil {
		return fmt.Errorf("restore %s: %s: %w", dir, TrainerFile, err)
	}
	if st.Format != trainerStateFormat || st.Update != update || st.Update < 0 || st.SkippedInARow < 0 {
		return fmt.Errorf("restore %s: %s is not a trainer state of update %d", dir, TrainerFile, update)
	}
	if st.Algo != t.spec.algo || st.Seed != t.spec.seed {
		return fmt.Errorf("restore %s: the set is %s with seed %d, this trainer %s with seed %d",
			dir, st.Algo, st.Seed, t.spec.algo, t.spec.seed)
	}
	want := []string{TrainerFile}
	type modelFile struct {
		name string
		dst  *model.Model
		src  *model.Model
	}
	var ms []modelFile
	for _, f := range []modelFile{{name: PolicyFile, dst: t.policy}, {name: CriticFile, dst: t.critic}, {name: RefFile, dst: t.ref}} {
		if f.dst != nil {
			want = append(want, f.name)
			ms = append(ms, f)
		}
	}
	type optFile struct {
		name string
		o    *optim.AdamW
		st   map[string][]float32
	}
	var opts []optFile
	for _, f := range []optFile{{name: PolicyOptimFile, o: t.actorOpt}, {name: CriticOptimFile, o: t.critOpt}} {
		if f.o != nil {
			want = append(want, f.name)
			opts = append(opts, f)
		}
	}
	have := slices.Sorted(maps.Keys(files))
	slices.Sort(want)
	if !slices.Equal(have, want) {
		return fmt.Errorf("restore %s: the set holds %v, this trainer needs %v (a different config?)", dir, have, want)
	}
	for i := range ms {
		src, _, err := model.LoadBytes(filepath.Join(dir, ms[i].name), files[ms[i].name])
		if err != nil {
			return fmt.Errorf("restore: %w", err)
		}
		if src.Config != ms[i].dst.Config {
			return fmt.Errorf("restore %s: %s has config %+v, this trainer's %+v", dir, ms[i].name, src.Config, ms[i].dst.Config)
		}
		ms[i].src = src
	}
	for i := range opts {
		var err error
		if opts[i].st, err = readOptimState(filepath.Join(dir, opts[i].name), files[opts[i].name]); err != nil {
			return fmt.Errorf("restore: %w", err)
		}
	}
	for _, f := range ms {
		copyWeights(f.dst, f.src)
	}
	for _, f := range opts {
		if err := f.o.ImportState(f.st); err != nil {
			return fmt.Errorf("restore %s: %s: %w", dir, f.name, err)
		}
	}
	t.update, t.guard.inARow = st.Update, st.SkippedInARow
	return nil
}

// copyWeights copies src's parameters into dst's (the same Config, so the
// same parameters in the same order).
func copyWeights(dst, src *model.Model) {
	sp := src.Params.Params()
	for i, p := range dst.Params.Params() {
		copy(p.Data(), sp[i].Data())
	}
}

// saveOptimState writes an AdamW state (ExportState) as a safetensors
// file of 1-D F32 tensors, sorted by name, atomically; non-finite values
// are refused.
func saveOptimState(opt *optim.AdamW, path string, meta map[string]string) error {
	st, err := opt.ExportState()
	if err != nil {
		return fmt.Errorf("save optimiser state: %w", err)
	}
	names := slices.Sorted(maps.Keys(st))
	ts := make([]engine.NamedTensor, len(names))
	for i, k := range names {
		ts[i] = engine.NamedTensor{Name: k, Shape: []int{len(st[k])}, Data: st[k]}
	}
	if err := engine.CheckFinite(ts); err != nil {
		return fmt.Errorf("save optimiser state %s: refusing non-finite values: %w", path, err)
	}
	m := maps.Clone(meta)
	m["format"] = optimStateFormat
	if err := engine.SaveSafetensors(path, ts, m); err != nil {
		return fmt.Errorf("save optimiser state: %w", err)
	}
	return nil
}

// readOptimState parses a file of saveOptimState (held in data) back into
// the map ImportState takes.
func readOptimState(name string, data []byte) (map[string][]float32, error) {
	ts, meta, err := engine.ReadSafetensors(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("optimiser state %s: %w", name, err)
	}
	if meta["format"] != optimStateFormat {
		return nil, fmt.Errorf("optimiser state %s: format %q, want %q", name, meta["format"], optimStateFormat)
	}
	if err := engine.CheckFinite(ts); err != nil {
		return nil, fmt.Errorf("optimiser state %s: %w", name, err)
	}
	st := make(map[string][]float32, len(ts))
	for _, t := range ts {
		d, ok := t.Data.([]float32)
		if !ok || len(t.Shape) != 1 {
			return nil, fmt.Errorf("optimiser state %s: %q is not a 1-D F32 tensor", name, t.Name)
		}
		st[t.Name] = d
	}
	return st, nil
}

// DecodeStrict decodes one JSON object onto v, refusing unknown fields
// and trailing data: the trainer's state, a run's config, a checkpoint
// set's manifest, a study's config and an arm's patch.
func DecodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("trailing data after the JSON object")
	}
	return nil
}

package rl

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strconv"

	"arew/engine"
	"arew/model"
)

// The files of a base build's checkpoint set (WriteState), beside the
// manifest. Like a trainer's, a build's state is small: every epoch's
// order is drawn from a generator derived from (seed, epoch), and each
// DAgger round's from (seed, round), so the epoch counter stands for
// every RNG state. What the counter cannot stand for is the DAgger
// rounds' demonstrations, played by the policy as it was at each round's
// start: they are saved.
const (
	BaseStateFile   = "base.json"         // the counters (baseState)
	DAggerDemosFile = "dagger-demos.gob"  // every DAgger round's demonstrations so far
	baseStateFormat = "arew.base/1"       // BaseStateFile's format
	daggerFormat    = "arew.dagger-gob/1" // DAggerDemosFile's first gob value
)

// baseState is BaseStateFile.
type baseState struct {
	Format string `json:"format"`
	Task   string `json:"task"`
	Preset string `json:"preset"`
	Seed   uint64 `json:"seed"`
	Epoch  int    `json:"epoch"` // epochs done: the next epoch's index
	Steps  int    `json:"steps"` // optimiser steps so far
	// SkippedInARow is the skip guard's count, which runs across epochs.
	SkippedInARow int `json:"skipped_in_a_row"`
	DAggerDemos   int `json:"dagger_demos"`
}

// savedDemo is what SFT's batch reads of a DAgger demonstration: its
// tokens, which of them are labels (Agent: the scripted policy's; the
// learner's are context), their log-probs, its turns and reward. The
// constrained-decoding masks and the episode's measures are not read by
// SFT and are not kept.
type savedDemo struct {
	Tokens    []int32
	Agent     []bool
	Logp      []float32
	Steps     []Step
	Reward    float64
	Group     int
	Truncated bool
}

// Updates is the number of epochs done (the SFT's, then the rounds').
func (b *Base) Updates() int { return b.sft.epoch }

// WriteState writes the build's whole state after an epoch into dir and
// returns the files' names: the policy's weights (PolicyFile), its AdamW
// state (PolicyOptimFile), the counters (BaseStateFile) and, once a DAgger
// round has played, its demonstrations (DAggerDemosFile), each
// atomically. info goes into the weights' metadata. The run layer keeps
// these files as one checkpoint set (rl/run.SaveState).
func (b *Base) WriteState(dir string, info map[string]string) ([]string, error) {
	meta := func(role string) map[string]string {
		m := maps.Clone(info)
		if m == nil {
			m = map[string]string{}
		}
		m["epoch"], m["role"] = strconv.Itoa(b.sft.epoch), role
		return m
	}
	if err := b.Policy.Save(filepath.Join(dir, PolicyFile), meta(PolicyFile)); err != nil {
		return nil, err
	}
	if err := saveOptimState(b.sft.opt, filepath.Join(dir, PolicyOptimFile), meta(PolicyOptimFile)); err != nil {
		return nil, err
	}
	names := []string{PolicyFile, PolicyOptimFile}
	if len(b.dagger) > 0 {
		err := engine.WriteFileAtomic(filepath.Join(dir, DAggerDemosFile), 0o644, func(w io.Writer) error {
			return encodeDemos(w, b.dagger)
		})
		if err != nil {
			return nil, fmt.Errorf("write %s: %w", DAggerDemosFile, err)
		}
		names = append(names, DAggerDemosFile)
	}
	st := baseState{Format: baseStateFormat, Task: b.Config.Task, Preset: b.Config.Preset, Seed: b.Config.Seed,
		Epoch: b.sft.epoch, Steps: b.sft.steps, SkippedInARow: b.sft.guard.inARow, DAggerDemos: len(b.dagger)}
	if err := writeJSONAtomic(filepath.Join(dir, BaseStateFile), st); err != nil {
		return nil, err
	}
	return append(names, BaseStateFile), nil
}

// LoadState puts a freshly made build (NewBase, of the same config) in the
// state of files (WriteState's, read back by the run layer for epoch
// update): the next Epoch continues bitwise as the saved build's would
// have (TestBaseResumeIsBitwise). Every file is checked before anything
// is changed.
func (b *Base) LoadState(dir string, update int, files map[string][]byte) error {
	if b.sft.epoch != 0 {
		return fmt.Errorf("restore %s: the build has already trained %d epochs", dir, b.sft.epoch)
	}
	var st baseState
	if err := DecodeStrict(files[BaseStateFile], &st); err != nil {
		return fmt.Errorf("restore %s: %s: %w", dir, BaseStateFile, err)
	}
	if st.Format != baseStateFormat || st.Epoch != update || st.Epoch < 0 || st.Epoch > b.Epochs() ||
		st.Steps < 0 || st.SkippedInARow < 0 || st.DAggerDemos < 0 {
		return fmt.Errorf("restore %s: %s is not a base build's state after epoch %d of %d", dir, BaseStateFile, update, b.Epochs())
	}
	if st.Task != b.Config.Task || st.Preset != b.Config.Preset || st.Seed != b.Config.Seed {
		return fmt.Errorf("restore %s: the set is a %s build of %s with seed %d, this one %s of %s with seed %d",
			dir, st.Preset, st.Task, st.Seed, b.Config.Preset, b.Config.Task, b.Config.Seed)
	}
	want := []string{PolicyFile, PolicyOptimFile, BaseStateFile}
	if st.DAggerDemos > 0 {
		want = append(want, DAggerDemosFile)
	}
	slices.Sort(want)
	if have := slices.Sorted(maps.Keys(files)); !slices.Equal(have, want) {
		return fmt.Errorf("restore %s: the set holds %v, a build after epoch %d needs %v", dir, have, update, want)
	}
	src, _, err := model.LoadBytes(filepath.Join(dir, PolicyFile), files[PolicyFile])
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	if src.Config != b.Policy.Config {
		return fmt.Errorf("restore %s: %s has config %+v, this build's policy %+v", dir, PolicyFile, src.Config, b.Policy.Config)
	}
	opt, err := readOptimState(filepath.Join(dir, PolicyOptimFile), files[PolicyOptimFile])
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	var demos []*Trajectory
	if st.DAggerDemos > 0 {
		if demos, err = decodeDemos(files[DAggerDemosFile]); err != nil {
			return fmt.Errorf("restore %s: %s: %w", dir, DAggerDemosFile, err)
		}
		if len(demos) != st.DAggerDemos {
			return fmt.Errorf("restore %s: %s holds %d demonstrations, %s says %d", dir, DAggerDemosFile, len(demos), BaseStateFile, st.DAggerDemos)
		}
	}
	if err := b.sft.opt.ImportState(opt); err != nil {
		return fmt.Errorf("restore %s: %s: %w", dir, PolicyOptimFile, err)
	}
	copyWeights(b.Policy, src)
	b.sft.epoch, b.sft.steps, b.sft.guard.inARow = st.Epoch, st.Steps, st.SkippedInARow
	b.dagger = demos
	return nil
}

// encodeDemos writes demonstrations as a gob stream: the format, the
// count, then each savedDemo.
func encodeDemos(w io.Writer, demos []*Trajectory) error {
	enc := gob.NewEncoder(w)
	if err := enc.Encode(daggerFormat); err != nil {
		return err
	}
	if err := enc.Encode(len(demos)); err != nil {
		return err
	}
	for _, t := range demos {
		d := savedDemo{Tokens: t.Tokens, Agent: t.Agent, Logp: t.Logp, Steps: t.Steps, Reward: t.Reward, Group: t.Group, Truncated: t.Truncated}
		if err := enc.Encode(d); err != nil {
			return err
		}
	}
	return nil
}

// decodeDemos reads encodeDemos's stream back, checking each trajectory.
func decodeDemos(data []byte) ([]*Trajectory, error) {
	dec := gob.NewDecoder(bytes.NewReader(data))
	var format string
	var n int
	if err := dec.Decode(&format); err != nil || format != daggerFormat {
		return nil, fmt.Errorf("not a %s stream", daggerFormat)
	}
	if err := dec.Decode(&n); err != nil || n < 0 || n > len(data) {
		return nil, fmt.Errorf("bad demonstration count")
	}
	out := make([]*Trajectory, n)
	for i := range out {
		var d savedDemo
		if err := dec.Decode(&d); err != nil {
			return nil, fmt.Errorf("demonstration %d: %w", i, err)
		}
		t := &Trajectory{Tokens: d.Tokens, Agent: d.Agent, Logp: d.Logp, Steps: d.Steps, Reward: d.Reward, Group: d.Group, Truncated: d.Truncated}
		if err := t.Validate(); err != nil {
			return nil, fmt.Errorf("demonstration %d: %w", i, err)
		}
		out[i] = t
	}
	return out, nil
}

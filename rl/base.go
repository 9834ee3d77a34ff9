package rl

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"arew/model"
	"arew/tasks"
)

// DemoSource is one part of a base policy's SFT data: a scripted policy
// played on a variant of the base task (its JSON overrides, and a style
// token), on Demos train instances, with TestDemos validation instances
// held out to measure imitation (a base is chosen before any RL, so it
// reads no test instance).
type DemoSource struct {
	Name       string          `json:"name"`
	TaskConfig json.RawMessage `json:"task_config,omitempty"`
	// Style, if not empty, is added to TaskConfig as its Style field
	// (StyledConfig): the source plays the task with that style token
	// after BOS (tasks.StyleGroups).
	Style     string           `json:"style,omitempty"`
	Policy    tasks.PolicySpec `json:"policy"`
	Demos     int              `json:"demos"`
	TestDemos int              `json:"test_demos"`
	// Noise, if set, replaces a share of the policy's turns with another
	// scripted policy's, kept as context and not trained on (DemoNoise),
	// in the training and the held-out demonstrations alike.
	Noise *DemoNoise `json:"noise,omitempty"`
	// Epochs, if set, are the SFT epochs this source's demonstrations are
	// trained in, a curriculum (one layout first, then another); unset,
	// every epoch. Its held-out demonstrations are measured after every
	// epoch all the same.
	Epochs *EpochRange `json:"epochs,omitempty"`
}

// EpochRange is the epochs First to Last, counted from 1, both included.
type EpochRange struct {
	First int `json:"first"`
	Last  int `json:"last"`
}

// Has reports whether epoch (counted from 1) is in the range; a nil range
// has every epoch.
func (r *EpochRange) Has(epoch int) bool {
	return r == nil || (epoch >= r.First && epoch <= r.Last)
}

// BaseConfig builds a base policy (the "pretrained model" RL starts from)
// by SFT of a fresh policy of a preset on the union of its sources'
// demonstrations. Every source's task variant must share one vocabulary,
// so that one model plays them all. Sources take consecutive, disjoint
// ranges of train instances, in order.
type BaseConfig struct {
	Task    string       `json:"task"`
	Sources []DemoSource `json:"sources"`
	Preset  string       `json:"preset"`
	Seed    uint64       `json:"seed"`
	SFT     SFTConfig    `json:"sft"`
	// DAgger, if set, continues the build after the SFT epochs with
	// rounds of DAgger (DAggerConfig).
	DAgger *DAggerConfig `json:"dagger,omitempty"`
}

// Validate checks the sizes; the tasks and policies are checked when built.
func (c BaseConfig) Validate() error {
	if len(c.Sources) == 0 {
		return fmt.Errorf("base: no demonstration sources")
	}
	total := 0
	for i, s := range c.Sources {
		if s.Name == "" || s.Demos < 0 || s.TestDemos < 0 {
			return fmt.Errorf("base: source %d needs a name and demos, test_demos ≥ 0", i)
		}
		if slices.ContainsFunc(c.Sources[:i], func(o DemoSource) bool { return o.Name == s.Name }) {
			return fmt.Errorf("base: two sources are named %s; their fits and evaluation rows are told apart by name", s.Name)
		}
		if s.Noise != nil {
			if err := s.Noise.Validate(); err != nil {
				return fmt.Errorf("base: source %s: %w", s.Name, err)
			}
		}
		if r := s.Epochs; r != nil && (r.First < 1 || r.Last < r.First || r.Last > c.SFT.Epochs) {
			return fmt.Errorf("base: source %s: epochs %d to %d are not within the SFT's 1 to %d", s.Name, r.First, r.Last, c.SFT.Epochs)
		}
		total += s.Demos
	}
	if total == 0 {
		return fmt.Errorf("base: the sources hold no training demonstrations")
	}
	for epoch := 1; epoch <= c.SFT.Epochs; epoch++ {
		if !slices.ContainsFunc(c.Sources, func(s DemoSource) bool { return s.Demos > 0 && s.Epochs.Has(epoch) }) {
			return fmt.Errorf("base: no source trains in epoch %d", epoch)
		}
	}
	if c.DAgger != nil {
		if err := c.DAgger.Validate(); err != nil {
			return fmt.Errorf("base: %w", err)
		}
		if c.DAggerSource() < 0 {
			return fmt.Errorf("base: DAgger names source %q, which the build does not have", c.DAgger.Source)
		}
	}
	return c.SFT.Validate()
}

// DAggerSource is the index of the source DAgger's rounds play (the last
// unless DAgger names one; −1 for a name no source has). Call it only when
// the config has DAgger.
func (c BaseConfig) DAggerSource() int {
	if c.DAgger.Source == "" {
		return len(c.Sources) - 1
	}
	return slices.IndexFunc(c.Sources, func(s DemoSource) bool { return s.Name == c.DAgger.Source })
}

// Steps is the number of optimiser steps the build takes: each SFT
// epoch's ⌈demonstrations / minibatch⌉ over the sources that train in it,
// then each DAgger epoch's over the last SFT epoch's demonstrations and
// the rounds' so far. A schedule that decays to the build's end sets its
// Decay to it.
func (c BaseConfig) Steps() int {
	perEpoch := func(n int) int { return (n + c.SFT.MiniBatch - 1) / c.SFT.MiniBatch }
	total, last := 0, 0
	for epoch := 1; epoch <= c.SFT.Epochs; epoch++ {
		last = 0
		for _, s := range c.Sources {
			if s.Epochs.Has(epoch) {
				last += s.Demos
			}
		}
		total += perEpoch(last)
	}
	if d := c.DAgger; d != nil {
		for round := 1; round <= d.Rounds; round++ {
			total += d.Epochs * perEpoch(last+round*d.Demos)
		}
	}
	return total
}

// BaseSource is a built source: its task variant and scripted policy.
type BaseSource struct {
	DemoSource
	Task   tasks.Task
	Policy tasks.Policy
}

// SourceFit is how well the policy imitates one source after an epoch:
// the held-out loss and teacher-forced token accuracy on its test demos.
type SourceFit struct {
	Name     string  `json:"name"`
	Loss     float64 `json:"test_loss"`
	Accuracy float64 `json:"test_accuracy"`
}

// BaseEpoch is one SFT epoch of a base build; the first epoch of a DAgger
// round carries the round's data collection.
type BaseEpoch struct {
	SFTMetrics
	Sources []SourceFit  `json:"sources"`
	DAgger  *DAggerRound `json:"dagger,omitempty"`
}

// Base is a base build in progress: the sources, the fresh policy and the
// demonstrations, made by NewBase and trained epoch by epoch.
type Base struct {
	Config  BaseConfig
	Sources []BaseSource
	Policy  *model.Model
	train   [][]*Trajectory // by source
	test    [][]*Trajectory
	sft     *SFT
	dagger  []*Trajectory // every DAgger round's so far
}

// BaseSources builds and checks the sources of cfg: each task variant and
// scripted policy, all sharing one vocabulary. It returns them with the
// longest episode any of them can have.
func BaseSources(cfg BaseConfig) ([]BaseSource, int, error) {
	if err := cfg.Validate(); err != nil {
		return nil, 0, err
	}
	var out []BaseSource
	maxTokens := 0
	for _, s := range cfg.Sources {
		raw, err := StyledConfig(s.TaskConfig, s.Style)
		if err != nil {
			return nil, 0, fmt.Errorf("base source %s: %w", s.Name, err)
		}
		task, err := tasks.New(cfg.Task, raw)
		if err != nil {
			return nil, 0, fmt.Errorf("base source %s: %w", s.Name, err)
		}
		pol, err := task.Scripted(s.Policy)
		if err != nil {
			return nil, 0, fmt.Errorf("base source %s: %w", s.Name, err)
		}
		if len(out) > 0 && !slices.Equal(task.Vocab().Words(), out[0].Task.Vocab().Words()) {
			return nil, 0, fmt.Errorf("base source %s: its vocabulary differs from source %s's; one model cannot play both",
				s.Name, out[0].Name)
		}
		maxTokens = max(maxTokens, task.MaxTokens())
		out = append(out, BaseSource{DemoSource: s, Task: task, Policy: pol})
	}
	return out, maxTokens, nil
}

// NewBase builds the sources (BaseSources), a fresh policy of the preset
// sized for the longest of them, and all demonstrations; once ctx ends it
// stops before the next demonstration and returns ctx's error.
func NewBase(ctx context.Context, cfg BaseConfig) (*Base, error) {
	src, maxTokens, err := BaseSources(cfg)
	if err != nil {
		return nil, err
	}
	b := &Base{Config: cfg, Sources: src}
	mc, err := model.NewConfig(cfg.Preset, b.Sources[0].Task.Vocab().Size(), maxTokens)
	if err != nil {
		return nil, fmt.Errorf("base: %w", err)
	}
	if b.Policy, err = model.New(mc, cfg.Seed); err != nil {
		return nil, fmt.Errorf("base: %w", err)
	}
	first := 0
	for _, s := range b.Sources {
		tr, err := NoisyDemonstrations(ctx, s.Task, s.Policy, s.Noise, tasks.Train, first, s.Demos, cfg.Seed)
		if err != nil {
			return nil, fmt.Errorf("base source %s: %w", s.Name, err)
		}
		first += s.Demos
		b.train = append(b.train, tr)
		te, err := NoisyDemonstrations(ctx, s.Task, s.Policy, s.Noise, tasks.Val, 0, s.TestDemos, cfg.Seed)
		if err != nil {
			return nil, fmt.Errorf("base source %s: %w", s.Name, err)
		}
		b.test = append(b.test, te)
	}
	sc := cfg.SFT
	sc.Seed = cfg.Seed
	sc.MaxLen = maxTokens
	if b.sft, err = NewSFT(b.Policy, sc); err != nil {
		return nil, err
	}
	return b, nil
}

// Close releases the SFT graph.
func (b *Base) Close() { b.sft.Close() }

// Epochs is the number of epochs of the build: the SFT's, then every
// DAgger round's.
func (b *Base) Epochs() int {
	n := b.Config.SFT.Epochs
	if d := b.Config.DAgger; d != nil {
		n += d.Rounds * d.Epochs
	}
	return n
}

// daggerRound is the DAgger round epoch (counted from 1) belongs to
// (counted from 1; 0 for the SFT's epochs), and whether it is the round's
// first epoch.
func (b *Base) daggerRound(epoch int) (round int, first bool) {
	k := epoch - b.Config.SFT.Epochs - 1
	if b.Config.DAgger == nil || k < 0 {
		return 0, false
	}
	return k/b.Config.DAgger.Epochs + 1, k%b.Config.DAgger.Epochs == 0
}

// Fit measures the current policy against every source's held-out
// demonstrations (NaN for a source without any).
func (b *Base) Fit() ([]SourceFit, error) {
	out := make([]SourceFit, len(b.Sources))
	for i, s := range b.Sources {
		out[i] = SourceFit{Name: s.Name, Loss: nan, Accuracy: nan}
		if len(b.test[i]) == 0 {
			continue
		}
		loss, acc, err := b.sft.Evaluate(b.test[i])
		if err != nil {
			return nil, fmt.Errorf("base source %s: %w", s.Name, err)
		}
		out[i].Loss, out[i].Accuracy = loss, acc
	}
	return out, nil
}

// Epoch runs the next SFT epoch over the demonstrations of every source
// that trains in it (DemoSource.Epochs), shuffled together, then measures
// the fit. Once ctx ends it stops before the next minibatch and returns
// ctx's error, the policy part way through the epoch: what an interrupted
// build keeps is the state written after its last finished epoch
// (WriteState).
//
// The first epoch of a DAgger round first plays the round's
// demonstrations with the policy as it is then (daggerDemonstrations), on
// the next train instances.
func (b *Base) Epoch(ctx context.Context) (BaseEpoch, error) {
	epoch := b.sft.epoch + 1
	var e BaseEpoch
	if round, first := b.daggerRound(epoch); first {
		src := b.Sources[b.Config.DAggerSource()]
		tr, r, err := daggerDemonstrations(ctx, src, b.Policy, *b.Config.DAgger, round, b.nextInstance(), b.Config.Seed)
		if err != nil {
			return BaseEpoch{}, fmt.Errorf("base: DAgger round %d: %w", round, err)
		}
		b.dagger = append(b.dagger, tr...)
		e.DAgger = &r
	}
	m, err := b.sft.epochUntil(ctx, b.epochData(epoch))
	if err != nil {
		return BaseEpoch{}, err
	}
	e.SFTMetrics = m
	e.Sources, err = b.Fit()
	return e, err
}

// nextInstance is the first train instance that no source and no DAgger
// round has played: sources and rounds take consecutive ranges, in order.
func (b *Base) nextInstance() int {
	n := len(b.dagger)
	for _, tr := range b.train {
		n += len(tr)
	}
	return n
}

// epochData is the demonstrations epoch (counted from 1) trains on: those
// of the sources that train in it, in the sources' order; in a DAgger
// round, the last SFT epoch's and every round's so far.
func (b *Base) epochData(epoch int) []*Trajectory {
	if round, _ := b.daggerRound(epoch); round > 0 {
		return append(b.epochData(b.Config.SFT.Epochs), b.dagger...)
	}
	var out []*Trajectory
	for i, s := range b.Sources {
		if s.Epochs.Has(epoch) {
			out = append(out, b.train[i]...)
		}
	}
	return out
}

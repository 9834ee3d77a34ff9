package rl

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
)

func tinyBase(demos int) BaseConfig {
	sft := DefaultSFTConfig()
	sft.Epochs = 1
	return BaseConfig{Task: "flodial-easy", Preset: "tiny", Seed: 3, SFT: sft, Sources: []DemoSource{
		{Name: "careful", TaskConfig: json.RawMessage(`{"Echo":true,"Style":"careful"}`), Policy: tasks.PolicySpec{Kind: "strong"}, Demos: demos, TestDemos: 8},
		{Name: "hasty", TaskConfig: json.RawMessage(`{"Echo":true,"Style":"hasty"}`), Policy: tasks.PolicySpec{Kind: "locked"}, Demos: demos, TestDemos: 8},
	}}
}

// A base build trains one policy on every source, measures its fit per
// source, and is deterministic.
func TestBaseBuild(t *testing.T) {
	run := func() ([]float32, BaseEpoch) {
		b, err := NewBase(context.Background(), tinyBase(32))
		require.NoError(t, err)
		defer b.Close()
		assert.Len(t, b.epochData(1), 64)
		before, err := b.Fit()
		require.NoError(t, err)
		e, err := b.Epoch(t.Context())
		require.NoError(t, err)
		require.Len(t, e.Sources, 2)
		for i, s := range e.Sources {
			assert.Less(t, s.Loss, before[i].Loss, s.Name)
		}
		return append([]float32(nil), b.Policy.Params.Params()[0].Data()...), e
	}
	w1, e1 := run()
	w2, e2 := run()
	assert.Equal(t, w1, w2)
	assert.Equal(t, e1.Sources, e2.Sources)
}

func TestBaseConfigErrors(t *testing.T) {
	for name, mutate := range map[string]func(*BaseConfig){
		"no sources":     func(c *BaseConfig) { c.Sources = nil },
		"no demos":       func(c *BaseConfig) { c.Sources[0].Demos, c.Sources[1].Demos = 0, 0 },
		"unnamed":        func(c *BaseConfig) { c.Sources[1].Name = "" },
		"named twice":    func(c *BaseConfig) { c.Sources[1].Name = c.Sources[0].Name },
		"vocab mismatch": func(c *BaseConfig) { c.Sources[1].TaskConfig = json.RawMessage(`{"Echo":true}`) },
		"bad policy":     func(c *BaseConfig) { c.Sources[0].Policy.Kind = "oracle" },
		"bad task":       func(c *BaseConfig) { c.Task = "nope" },
		"bad preset":     func(c *BaseConfig) { c.Preset = "huge" },
		"bad sft":        func(c *BaseConfig) { c.SFT.Epochs = 0 },
		"epochs past the SFT's": func(c *BaseConfig) {
			c.Sources[0].Epochs = &EpochRange{First: 1, Last: 2}
		},
		"epochs reversed": func(c *BaseConfig) {
			c.SFT.Epochs = 2
			c.Sources[0].Epochs = &EpochRange{First: 2, Last: 1}
		},
		"an epoch no source trains in": func(c *BaseConfig) {
			c.SFT.Epochs = 3
			c.Sources[0].Epochs = &EpochRange{First: 1, Last: 1}
			c.Sources[1].Epochs = &EpochRange{First: 3, Last: 3}
		},
	} {
		c := tinyBase(4)
		mutate(&c)
		_, err := NewBase(context.Background(), c)
		assert.Error(t, err, name)
	}
}

// endsAfter is a context whose Err turns to Canceled on its n+1-th call.
type endsAfter struct {
	context.Context
	n int
}

func (c *endsAfter) Err() error {
	if c.n == 0 {
		return context.Canceled
	}
	c.n--
	return nil
}

// An interrupted base build stops before its next minibatch, not at the
// end of the epoch (a large build's epoch takes many minutes).
func TestBaseEpochStopsBetweenMinibatches(t *testing.T) {
	b, err := NewBase(context.Background(), tinyBase(32))
	require.NoError(t, err)
	defer b.Close()
	_, err = b.Epoch(&endsAfter{Context: t.Context(), n: 2})
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 2, b.sft.steps, "two of the epoch's four minibatches, then the stop")
}

// An interrupted base build stops while it makes its demonstrations too,
// before the next one (a large build makes tens of thousands).
func TestNewBaseStopsBetweenDemonstrations(t *testing.T) {
	ctx := &endsAfter{Context: t.Context(), n: 5}
	_, err := NewBase(ctx, tinyBase(32))
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 0, ctx.n, "five demonstrations, then the stop")
}

// A curriculum: each source trains only in its epochs, and an unset
// range is every epoch; every source's fit is measured every epoch.
func TestBaseCurriculum(t *testing.T) {
	c := tinyBase(8)
	c.SFT.Epochs = 3
	c.SFT.MiniBatch = 8
	c.Sources[0].Epochs = &EpochRange{First: 1, Last: 2}
	c.Sources[1].Epochs = &EpochRange{First: 2, Last: 3}
	b, err := NewBase(context.Background(), c)
	require.NoError(t, err)
	defer b.Close()
	assert.Equal(t, b.train[0], b.epochData(1))
	assert.Equal(t, append(append([]*Trajectory(nil), b.train[0]...), b.train[1]...), b.epochData(2))
	assert.Equal(t, b.train[1], b.epochData(3))
	for epoch, steps := range []int{1, 3, 4} { // minibatches of 8: 8, 16 and 8 demonstrations
		e, err := b.Epoch(t.Context())
		require.NoError(t, err)
		assert.Equal(t, steps, e.Steps, "optimiser steps after epoch %d", epoch+1)
		assert.Len(t, e.Sources, 2)
	}
	assert.Equal(t, 4, c.Steps(), "the steps a build takes, counted from its config")
	c.SFT.MiniBatch = 5
	assert.Equal(t, 2+4+2, c.Steps(), "a last minibatch short of 5 is a step")
	var all *EpochRange
	assert.True(t, all.Has(7))
}

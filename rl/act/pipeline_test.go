package act

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/model"
	"arew/tasks/textworld"
)

// tinyConfig is a pipeline small enough for a unit test: three games,
// one epoch per SFT, two updates per GRPO stage.
func tinyConfig(t *testing.T) Config {
	cfg := DefaultConfig()
	cfg.Games, cfg.HeldOut, cfg.Episodes, cfg.OODEpisodes = 3, 1, 2, 2
	cfg.InitShare = 0.5
	cfg.Init.Epochs, cfg.IL.Epochs = 1, 1
	cfg.Collect.K = 2
	for _, s := range []*GRPOStage{&cfg.ACT, &cfg.RL} {
		s.Updates = 2
		s.GRPO.Prompts, s.GRPO.GroupSize = 2, 2
		s.GRPO.Rollout.Workers = 1
	}
	cfg.Dir = t.TempDir()
	return cfg
}

// TestRunWritesEveryRow: a complete tiny run writes every stage and row,
// and checks its context on the way (TestRunStopsWhenTheContextEnds
// stops it at some of those checks).
func TestRunWritesEveryRow(t *testing.T) {
	cfg := tinyConfig(t)
	var lines []string
	left := 1 << 30
	rep, err := Run(endsAfter{WithStageLog(context.Background(), func(l string) { lines = append(lines, l) }), &left}, cfg)
	require.NoError(t, err)
	checks := 1<<30 - left
	t.Logf("a complete tiny run checks its context %d times", checks)
	assert.Greater(t, checks, 6, "one check per update or epoch")
	want := []string{"expert data", "π_θ0", "D_critic"}
	for _, r := range AllRows[1:] {
		want = append(want, "train "+r)
	}
	for _, r := range AllRows {
		want = append(want, "evaluate "+r)
	}
	require.Len(t, rep.Stages, len(want), "every stage timed")
	require.Len(t, lines, len(want), "and reported as it ends")
	for i, st := range rep.Stages {
		assert.Equal(t, want[i], st.Stage)
		assert.GreaterOrEqual(t, st.Seconds, 0.0)
		assert.Contains(t, lines[i], "alfworld seed 1: "+want[i]+" done in ")
	}
	require.Len(t, rep.Rows, len(AllRows))
	assert.Positive(t, rep.Critic)
	for i, r := range rep.Rows {
		assert.Equal(t, AllRows[i], r.Row)
		require.NotNil(t, r.ID)
		require.NotNil(t, r.OOD)
		require.NotNil(t, r.Offline)
		assert.Equal(t, 2, r.ID.Episodes)
		m, meta, err := model.Load(r.Checkpoint)
		require.NoError(t, err, r.Row)
		assert.Equal(t, rep.Model, m.Config)
		assert.Equal(t, r.Row, meta["row"])
	}
	assert.Len(t, rep.GRPO[RowACT], 2)
	assert.Len(t, rep.GRPO[RowRLwACT], 2)
	assert.Len(t, rep.SFT[RowEE], 1)
	pairs, err := ReadPairs(filepath.Join(cfg.Dir, "pairs.jsonl"), mustEnv(t).Vocab)
	require.NoError(t, err)
	assert.Equal(t, rep.Pairs, len(pairs))
	t.Logf("%d pairs, %d critic examples, context %d", rep.Pairs, rep.Critic, rep.Model.Context)
}

// endsAfter is a context whose Err turns to context.Canceled after n
// checks: it ends a pipeline inside whichever stage makes check n + 1.
type endsAfter struct {
	context.Context
	n *int
}

func (c endsAfter) Err() error {
	if *c.n <= 0 {
		return context.Canceled
	}
	*c.n--
	return nil
}

// TestRunStopsWhenTheContextEnds: a context that ends at the first check,
// or inside π_θ0's SFT, the ACT stage's GRPO or a later stage, stops Run
// with context.Canceled and no report (TestRunWritesEveryRow: with checks
// to spare the same run completes, so the checks are on the path).
func TestRunStopsWhenTheContextEnds(t *testing.T) {
	for _, n := range []int{0, 1, 3, 6} {
		cfg := tinyConfig(t)
		left := n
		rep, err := Run(endsAfter{context.Background(), &left}, cfg)
		require.Error(t, err, "n = %d", n)
		assert.True(t, errors.Is(err, context.Canceled), "n = %d: %v", n, err)
		assert.Nil(t, rep)
		assert.NoFileExists(t, filepath.Join(cfg.Dir, "report.json"))
	}
}

func mustEnv(t *testing.T) *Env {
	env, err := NewEnv("alfworld", nil)
	require.NoError(t, err)
	return env
}

func TestTransferReusesTheLargerPresetsData(t *testing.T) {
	src, dst := tinyConfig(t), tinyConfig(t)
	src.Preset, src.Dir = "small", ""
	dst.Rows = []string{RowACT, RowILwACT}
	dst.Episodes, dst.OODEpisodes = 1, 0
	rep, err := Transfer(context.Background(), src, dst)
	require.NoError(t, err)
	env := mustEnv(t)
	from, err := ReadCritic(filepath.Join(dst.Dir, "source-critic.jsonl"), env.Vocab)
	require.NoError(t, err)
	used, err := ReadCritic(filepath.Join(dst.Dir, "critic.jsonl"), env.Vocab)
	require.NoError(t, err)
	assert.Equal(t, from, used, "the target trains on the source's D_critic")
	assert.Equal(t, 32, rep.Model.DModel, "the target is the tiny preset")
	require.Len(t, rep.Rows, 2)
	assert.Nil(t, rep.Rows[0].OOD)

	other := dst
	other.Games++
	_, err = Transfer(context.Background(), src, other)
	assert.ErrorContains(t, err, "share")
}

func TestRunOnEveryEnvironment(t *testing.T) {
	for _, c := range []struct {
		env string
		ood bool
	}{{"alfworld", true}, {"webshop", false}, {"sciworld", false}} {
		t.Run(c.env, func(t *testing.T) {
			cfg := tinyConfig(t)
			cfg.Env, cfg.Games, cfg.Rows = c.env, 2, []string{RowACT, RowRL}
			cfg.Episodes, cfg.OODEpisodes = 1, 1
			rep, err := Run(context.Background(), cfg)
			require.NoError(t, err)
			require.Len(t, rep.Rows, 2)
			for _, r := range rep.Rows {
				require.NotNil(t, r.ID)
				assert.Equal(t, c.ood, r.OOD != nil, "an OOD split only where the environment has one")
				require.NotNil(t, r.Offline)
				assert.GreaterOrEqual(t, *r.Offline, 0.0)
			}
		})
	}
}

// TestValSplitReadsNoTestGame: with split "val" the held-out states are
// the validation games' expert pairs, not the test games', and the online
// ID games are validation games.
func TestValSplitReadsNoTestGame(t *testing.T) {
	cfg := smokeRun("webshop")
	cfg.Split, cfg.OODEpisodes = "val", 0
	cfg.Rows = []string{RowPrompting}
	cfg.Dir = t.TempDir()
	rep, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	env, err := NewEnv("webshop", nil)
	require.NoError(t, err)
	held, err := ReadPairs(filepath.Join(cfg.Dir, "held_out.jsonl"), env.Vocab)
	require.NoError(t, err)
	val, err := env.ExpertPairs(textworld.Val, 0, cfg.HeldOut, cfg.Collect.History)
	require.NoError(t, err)
	test, err := env.ExpertPairs(textworld.Test, 0, cfg.HeldOut, cfg.Collect.History)
	require.NoError(t, err)
	assert.Equal(t, len(val), len(held))
	for i := range held {
		assert.Equal(t, val[i].Expert, held[i].Expert)
	}
	assert.NotEqual(t, fmt.Sprint(test), fmt.Sprint(val), "the two splits' first games differ")
	require.Len(t, rep.Rows, 1)
	require.NotNil(t, rep.Rows[0].ID)
	assert.Equal(t, 2, rep.Rows[0].ID.Episodes)
	assert.Nil(t, rep.Rows[0].OOD)
}

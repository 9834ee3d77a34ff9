package rl

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
)

// PlayInto, recording over the trajectories of earlier rollouts (as a
// trainer does, update after update) and on decoders whose slots have
// played other episodes, gives exactly Play's trajectories on a fresh
// roller: nothing of an earlier episode survives in a reused trajectory,
// buffer or generator. More specs than spares get new trajectories.
func TestPlayIntoMatchesPlay(t *testing.T) {
	for _, raw := range []string{``, `{"Critiques": "per-fault"}`} { // per-fault: steps with per-token critiques
		var cfgJSON json.RawMessage
		if raw != "" {
			cfgJSON = json.RawMessage(raw)
		}
		task, err := tasks.New("flodial-easy", cfgJSON)
		require.NoError(t, err)
		t.Run(raw, func(t *testing.T) { playIntoMatchesPlay(t, task) })
	}
}

func playIntoMatchesPlay(t *testing.T, task tasks.Task) {
	policy := tinyPolicy(t, task, 9, false)
	cfg := DefaultRolloutConfig()
	cfg.Workers, cfg.Slots = 2, 3
	reused, err := NewRoller(policy, task, cfg)
	require.NoError(t, err)
	var spare []*Trajectory
	for _, c := range []struct {
		name          string
		prompts, reps int
		update        int
	}{
		{"first", 4, 2, 0},
		{"same size", 4, 2, 1},
		{"fewer", 2, 1, 2},
		{"more than the spares", 5, 2, 3},
	} {
		specs := trainSpecs(c.prompts, c.reps)
		want, _ := play(t, policy, task, cfg, specs, 5, c.update)
		got, st, err := reused.PlayInto(specs, 5, c.update, spare)
		require.NoError(t, err, c.name)
		require.Len(t, got, len(specs), c.name)
		assert.Equal(t, len(specs), st.Episodes, c.name)
		for i := range specs {
			if i < len(spare) {
				assert.Same(t, spare[i], got[i], "%s: episode %d reuses its spare", c.name, i)
			}
			assert.Equal(t, *want[i], *got[i], "%s: episode %d", c.name, i)
		}
		spare = got
	}
}

// freshEpisodes is a task without its Recycle: every episode from NewEpisode.
type freshEpisodes struct{ tasks.Task }

// A rollout on a task that recycles its episodes (flodial) gives exactly
// the trajectories it gives when every episode is new, under both spec
// and per-fault critiques, for a roller that plays update after update.
func TestRecycledEpisodesMatchNewOnes(t *testing.T) {
	for _, raw := range []string{``, `{"Critiques": "per-fault"}`} {
		var cfgJSON json.RawMessage
		if raw != "" {
			cfgJSON = json.RawMessage(raw)
		}
		task, err := tasks.New("flodial-easy", cfgJSON)
		require.NoError(t, err)
		_, ok := task.(tasks.Recycler)
		require.True(t, ok, "flodial recycles its episodes")
		policy := tinyPolicy(t, task, 4, false)
		cfg := DefaultRolloutConfig()
		cfg.Workers, cfg.Slots = 1, 2
		recycled, err := NewRoller(policy, task, cfg)
		require.NoError(t, err)
		fresh, err := NewRoller(policy, freshEpisodes{task}, cfg)
		require.NoError(t, err)
		for update := range 3 {
			specs := trainSpecs(6, 1)
			want, _, err := fresh.Play(specs, 8, update)
			require.NoError(t, err)
			got, _, err := recycled.Play(specs, 8, update)
			require.NoError(t, err)
			for i := range specs {
				assert.Equal(t, *want[i], *got[i], "%s update %d episode %d", raw, update, i)
			}
		}
	}
}

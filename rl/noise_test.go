package rl

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
)

// replayNoisy plays tr's episode again from its tokens: at each turn whose
// first token is the agent's, the strong policy, acting on the replayed
// state, must write exactly the recorded tokens (the demonstrator's turn
// after whatever came before, noise included); any other turn is a noise
// turn, read up to its EOT. Every observation must match too. It returns
// the number of noise turns of each kind.
func replayNoisy(t *testing.T, task tasks.Task, strong tasks.Policy, tr *Trajectory, split tasks.Split, index int) (noise [2]int) {
	t.Helper()
	ep, err := task.NewEpisode(split, index)
	require.NoError(t, err)
	pos := len(ep.Prompt())
	require.Equal(t, ep.Prompt(), tr.Tokens[:pos])
	for !ep.Done() {
		turn := ep.Next()
		var action []tasks.Token
		if tr.Agent[pos] {
			action, err = strong.Act(ep, rand.New(rand.NewPCG(0, 0)))
			require.NoError(t, err)
			require.Equal(t, action, tr.Tokens[pos:pos+len(action)], "the demonstrator's turn at token %d", pos)
		} else {
			end := pos
			for end-pos < turn.MaxTokens && tr.Tokens[end] != tasks.EOT {
				end++
			}
			action = tr.Tokens[pos:end]
			noise[turn.Kind]++
		}
		n := len(action)
		if n < turn.MaxTokens {
			n++ // EOT
		}
		for p := pos; p < pos+n; p++ {
			require.Equal(t, tr.Agent[pos], tr.Agent[p], "a turn is the agent's or the noise's as a whole")
		}
		pos += n
		obs, _, err := ep.Step(action)
		require.NoError(t, err)
		require.True(t, slices.Equal(obs, tr.Tokens[pos:pos+len(obs)]), "the observation at token %d", pos)
		pos += len(obs)
	}
	require.Equal(t, len(tr.Tokens), pos)
	return noise
}

// Noisy demonstrations: the random policy takes about Share of the AS
// turns (as context, not the agent's), never a BT turn; every agent turn
// is the strong policy's at the state the noise led to; the same seed
// gives the same demonstrations, and no noise gives Demonstrations'.
func TestNoisyDemonstrations(t *testing.T) {
	task, err := tasks.New("pe-f-d6", json.RawMessage(`{"Echo": true}`))
	require.NoError(t, err)
	strong, err := task.Scripted(tasks.PolicySpec{Kind: "strong"})
	require.NoError(t, err)
	noise := &DemoNoise{Policy: tasks.PolicySpec{Kind: "random"}, Kind: "AS", Share: 0.3}
	const n = 200
	demos, err := NoisyDemonstrations(context.Background(), task, strong, noise, tasks.Train, 10, n, 7)
	require.NoError(t, err)
	var taken [2]int
	turns := 0
	for i, tr := range demos {
		require.NoError(t, tr.Validate())
		got := replayNoisy(t, task, strong, tr, tasks.Train, 10+i)
		taken[tasks.AS] += got[tasks.AS]
		taken[tasks.BT] += got[tasks.BT]
		for _, s := range tr.Steps {
			if s.Kind == tasks.AS {
				turns++
			}
		}
	}
	turns += taken[tasks.AS]
	assert.Zero(t, taken[tasks.BT], "the noise takes AS turns only")
	share := float64(taken[tasks.AS]) / float64(turns)
	assert.InDelta(t, 0.3, share, 4*math.Sqrt(0.3*0.7/float64(turns)), "%d of %d AS turns", taken[tasks.AS], turns)

	again, err := NoisyDemonstrations(context.Background(), task, strong, noise, tasks.Train, 10, n, 7)
	require.NoError(t, err)
	other, err := NoisyDemonstrations(context.Background(), task, strong, noise, tasks.Train, 10, n, 8)
	require.NoError(t, err)
	same, differ := true, false
	for i := range demos {
		same = same && slices.Equal(demos[i].Tokens, again[i].Tokens) && slices.Equal(demos[i].Agent, again[i].Agent)
		differ = differ || !slices.Equal(demos[i].Agent, other[i].Agent)
	}
	assert.True(t, same, "same seed, same demonstrations")
	assert.True(t, differ, "another seed, other noise")

	clean, err := NoisyDemonstrations(context.Background(), task, strong, nil, tasks.Train, 10, 5, 7)
	require.NoError(t, err)
	plain, err := Demonstrations(task, strong, tasks.Train, 10, 5, 7)
	require.NoError(t, err)
	for i := range clean {
		assert.Equal(t, plain[i].Tokens, clean[i].Tokens)
		assert.NotContains(t, clean[i].Agent[len(clean[i].Agent)-1:], false, "the last turn is the agent's")
	}
}

func TestDemoNoiseValidate(t *testing.T) {
	for _, bad := range []DemoNoise{{Share: 0}, {Share: 1}, {Share: math.NaN()}, {Share: -0.1}, {Share: 0.5, Kind: "as"}} {
		assert.Error(t, bad.Validate(), "%+v", bad)
	}
	assert.NoError(t, DemoNoise{Share: 0.5, Kind: "BT"}.Validate())
	assert.NoError(t, DemoNoise{Share: 0.5}.Validate())
	cfg := BaseConfig{Task: "pe-f-d6", Preset: "tiny", SFT: DefaultSFTConfig(), Sources: []DemoSource{
		{Name: "noisy", Policy: tasks.PolicySpec{Kind: "strong"}, Demos: 4, Noise: &DemoNoise{Share: 2}}}}
	assert.ErrorContains(t, cfg.Validate(), "base: source noisy: noise: share 2")
}

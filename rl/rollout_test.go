package rl

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/model"
	"arew/tasks"
	_ "arew/tasks/all"
)

func flodialEasy(t testing.TB) tasks.Task {
	task, err := tasks.New("flodial-easy", nil)
	require.NoError(t, err)
	return task
}

func trainSpecs(n, group int) []EpisodeSpec {
	var out []EpisodeSpec
	for i := range n {
		for range group {
			out = append(out, EpisodeSpec{Split: tasks.Train, Index: i, Group: i})
		}
	}
	return out
}

func play(t *testing.T, policy *model.Model, task tasks.Task, cfg RolloutConfig, specs []EpisodeSpec, seed uint64, update int) ([]*Trajectory, RolloutStats) {
	t.Helper()
	r, err := NewRoller(policy, task, cfg)
	require.NoError(t, err)
	trajs, st, err := r.Play(specs, seed, update)
	require.NoError(t, err)
	require.Len(t, trajs, len(specs))
	return trajs, st
}

// Each episode samples from its own stream of (seed, update, index) and the
// decoder computes every sequence independently of its batch mates, so one
// worker with one slot, one worker with 16 slots and 3 workers with 4 slots
// give bitwise-equal trajectories (tokens, log-probs, steps, measures).
// Episodes of the same instance (a GRPO group) differ, and so does the next
// update.
func TestRolloutIndependentOfWorkers(t *testing.T) {
	task := flodialEasy(t)
	policy := tinyPolicy(t, task, 7, false)
	specs := trainSpecs(5, 2)
	var runs [][]*Trajectory
	for _, wc := range [][2]int{{1, 1}, {1, 16}, {3, 4}} {
		cfg := DefaultRolloutConfig()
		cfg.Workers, cfg.Slots = wc[0], wc[1]
		trajs, st := play(t, policy, task, cfg, specs, 11, 3)
		assert.Equal(t, len(specs), st.Episodes)
		runs = append(runs, trajs)
	}
	for _, other := range runs[1:] {
		for i := range specs {
			assert.Equal(t, runs[0][i].Tokens, other[i].Tokens, "episode %d", i)
			assert.Equal(t, runs[0][i].Logp, other[i].Logp, "episode %d", i)
			assert.Equal(t, runs[0][i].Steps, other[i].Steps, "episode %d", i)
			assert.Equal(t, runs[0][i].Reward, other[i].Reward, "episode %d", i)
		}
	}
	assert.NotEqual(t, runs[0][0].Tokens, runs[0][1].Tokens, "two rollouts of one instance")
	next, _ := play(t, policy, task, DefaultRolloutConfig(), specs, 11, 4)
	assert.NotEqual(t, runs[0][0].Tokens, next[0].Tokens, "the next update")
}

// What a rollout records: the prompt, then per turn the sampled tokens (up
// to EOT or the turn's MaxTokens) as one step with the env's critique, and
// the observation; the recorded log-probs are log π at temperature 1, which
// the training graph recomputes to float32 rounding; the group is kept.
func TestRolloutRecordsTurns(t *testing.T) {
	task := flodialEasy(t)
	policy := tinyPolicy(t, task, 8, false)
	specs := trainSpecs(4, 2)
	trajs, st := play(t, policy, task, DefaultRolloutConfig(), specs, 1, 0)
	sampled := 0
	for i, tr := range trajs {
		require.NoError(t, tr.Validate())
		assert.Equal(t, specs[i].Group, tr.Group)
		assert.False(t, tr.Truncated)
		ep, err := task.NewEpisode(tasks.Train, specs[i].Index)
		require.NoError(t, err)
		prompt := ep.Prompt()
		assert.Equal(t, prompt, tr.Tokens[:len(prompt)])
		// Replay the recorded turns into a fresh episode: same judgements.
		for k, s := range tr.Steps {
			turn := ep.Next()
			toks := tr.Tokens[s.Start:s.End]
			assert.LessOrEqual(t, len(toks), turn.MaxTokens)
			eot := toks[len(toks)-1] == tasks.EOT
			assert.True(t, eot || len(toks) == turn.MaxTokens, "turn %d ends at EOT or its bound", k)
			action := toks
			if eot {
				action = toks[:len(toks)-1]
			}
			for _, tok := range action {
				assert.NotEqual(t, tasks.EOT, tok, "EOT only last")
			}
			obs, js, err := ep.Step(action)
			require.NoError(t, err)
			assert.Equal(t, js.Z, s.Z)
			assert.Equal(t, js.Kind, s.Kind)
			end := s.End + len(obs)
			assert.Equal(t, append([]tasks.Token{}, obs...), tr.Tokens[s.End:end])
			for p := s.Start; p < s.End; p++ {
				assert.Less(t, tr.Logp[p], float32(0))
				sampled++
			}
		}
		assert.True(t, ep.Done())
		assert.Equal(t, ep.Measures().Reward, tr.Reward)
	}
	assert.Equal(t, sampled, st.Sampled)
}

// A cap below the task's bound truncates: every episode stops at MaxLen
// tokens, is marked, gets reward 0 and the NaN measures of an unscored
// episode, and still packs into a batch.
func TestRolloutTruncates(t *testing.T) {
	task := flodialEasy(t)
	policy := tinyPolicy(t, task, 9, false)
	ep, err := task.NewEpisode(tasks.Train, 0)
	require.NoError(t, err)
	cfg := DefaultRolloutConfig()
	cfg.MaxLen = len(ep.Prompt()) + 7
	trajs, st := play(t, policy, task, cfg, trainSpecs(6, 1), 2, 0)
	assert.Equal(t, 6, st.Truncated)
	for _, tr := range trajs {
		require.NoError(t, tr.Validate())
		assert.True(t, tr.Truncated)
		assert.LessOrEqual(t, len(tr.Tokens), cfg.MaxLen)
		assert.Zero(t, tr.Reward)
		assert.False(t, tr.Measures.Success)
		assert.True(t, math.IsNaN(tr.Measures.IAS))
		assert.NotEmpty(t, tr.Steps)
	}
	_, err = NewBatch(trajs)
	require.NoError(t, err)
	cut := 0 // episodes stopped mid-turn: the partial turn is an unjudged step
	for _, tr := range trajs {
		last := tr.Steps[len(tr.Steps)-1]
		if last.End == cfg.MaxLen && tr.Tokens[last.End-1] != tasks.EOT {
			assert.Zero(t, last.Z)
			cut++
		}
	}
	assert.Positive(t, cut)

	cfg.MaxLen = len(ep.Prompt())
	r, err := NewRoller(policy, task, cfg)
	require.NoError(t, err)
	_, _, err = r.Play(trainSpecs(1, 1), 1, 0)
	assert.ErrorContains(t, err, "no room")
}

func TestRolloutRejectsBadConfig(t *testing.T) {
	task := flodialEasy(t)
	policy := tinyPolicy(t, task, 1, false)
	for name, mut := range map[string]func(*RolloutConfig){
		"workers":     func(c *RolloutConfig) { c.Workers = -1 },
		"slots":       func(c *RolloutConfig) { c.Slots = 0 },
		"max_len":     func(c *RolloutConfig) { c.MaxLen = policy.Config.Context + 1 },
		"temperature": func(c *RolloutConfig) { c.Sampler.Temperature = 0 },
		"top_k":       func(c *RolloutConfig) { c.Sampler.TopK = -2 },
	} {
		cfg := DefaultRolloutConfig()
		mut(&cfg)
		_, err := NewRoller(policy, task, cfg)
		assert.Error(t, err, name)
	}
	small, err := model.New(model.Config{Vocab: 5, Context: 200, DModel: 8, Layers: 1, Heads: 1, MLP: 8, InitStd: 0.02, LMHead: true}, 1)
	require.NoError(t, err)
	_, err = NewRoller(small, task, DefaultRolloutConfig())
	assert.ErrorContains(t, err, "vocabulary")
}

// A scripted episode becomes a valid trajectory whose agent tokens are
// exactly the policy's turns plus EOT, one step per turn, and which packs.
func TestPlayScriptedRecordsEveryTask(t *testing.T) {
	for _, name := range tasks.Names() {
		task, err := tasks.New(name, nil)
		require.NoError(t, err)
		pol, err := task.Scripted(tasks.PolicySpec{Kind: "strong"})
		require.NoError(t, err)
		tr, err := PlayScripted(task, pol, tasks.Train, 3, rand.New(rand.NewPCG(1, 2)))
		require.NoError(t, err, name)
		require.NoError(t, tr.Validate(), name)
		assert.Equal(t, tasks.BOS, tr.Tokens[0], name)
		assert.Equal(t, len(tr.Steps), tr.Measures.Turns, name)
		for _, s := range tr.Steps {
			assert.Equal(t, tasks.EOT, tr.Tokens[s.End-1], "%s: every turn ends with EOT", name)
		}
		agent := 0
		for _, s := range tr.Steps {
			agent += s.End - s.Start
		}
		assert.Equal(t, agent, tr.NumAgentTokens(), name)
		_, err = NewBatch([]*Trajectory{tr})
		require.NoError(t, err, name)
	}
}

// Recording over a used trajectory, as PlayInto does, gives what a fresh
// recording gives, per-token critiques included (copied, not shared with
// the task's step), and reuses their arrays: no allocation once grown.
func TestRecordOverReusesTokenZ(t *testing.T) {
	first := []tasks.Step{{Kind: tasks.BT, Z: 1, TokenZ: []int8{1, -1, 1}}, {Kind: tasks.AS, Z: -1},
		{Kind: tasks.BT, TokenZ: []int8{-1, -1, 1, 1}}}
	second := []tasks.Step{{Kind: tasks.AS}, {Kind: tasks.BT, Z: -1, TokenZ: []int8{1, 1, 1, -1, -1}},
		{Kind: tasks.BT, TokenZ: []int8{0, 1}}, {Kind: tasks.BT, Final: true, TokenZ: []int8{-1}}}
	record := func(tr *Trajectory, steps []tasks.Step) {
		r := recorder{tr: tr}
		r.observe([]tasks.Token{1, 2})
		for _, st := range steps {
			r.act([]tasks.Token{5, 6, 7, 8, 9}, nil, nil, st)
			r.observe([]tasks.Token{3})
		}
	}
	used := &Trajectory{}
	record(used, first)
	used.reset()
	record(used, second)
	fresh := &Trajectory{}
	record(fresh, second)
	assert.Equal(t, *fresh, *used)
	second[1].TokenZ[0] = -1 // the task's slice is its own
	assert.Equal(t, int8(1), used.Steps[1].TokenZ[0])
	assert.Zero(t, testing.AllocsPerRun(10, func() {
		used.reset()
		record(used, second)
	}))
}

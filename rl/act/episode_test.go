package act

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
)

// answer plays one answer on example i of task's training set.
func answer(t *testing.T, task tasks.Task, i int, a []tasks.Token) (float64, tasks.Measures) {
	t.Helper()
	ep, err := task.NewEpisode(tasks.Train, i)
	require.NoError(t, err)
	require.False(t, ep.Done())
	obs, st, err := ep.Step(a)
	require.NoError(t, err)
	assert.Empty(t, obs)
	assert.True(t, st.Final)
	require.True(t, ep.Done())
	_, _, err = ep.Step(a)
	assert.Error(t, err, "a second answer")
	return ep.Measures().Reward, ep.Measures()
}

func TestChoiceEpisodeRewards(t *testing.T) {
	f := newFixture(t)
	v := f.env.Vocab
	task, err := ChoiceTask(f.env, ChoiceSlot, DefaultShaping(), f.critic, nil)
	require.NoError(t, err)
	one, two := v.ID("1"), v.ID("2")
	for i, c := range f.critic {
		right, wrong := []tasks.Token{two}, []tasks.Token{one}
		if c.ExpertFirst {
			right, wrong = wrong, right
		}
		r, m := answer(t, task, i, right)
		assert.Equal(t, 1.0, r)
		assert.True(t, m.Success)
		r, m = answer(t, task, i, wrong)
		assert.False(t, m.Success)
		if c.AltAdmissible {
			assert.Equal(t, 0.1, r, "an admissible wrong pick")
		} else {
			assert.Equal(t, 0.0, r, "an inadmissible wrong pick")
		}
		for _, bad := range [][]tasks.Token{nil, {one, one}, {v.ID("3")}, {tasks.BOS}} {
			r, m = answer(t, task, i, bad)
			assert.Equal(t, -0.5, r, "%v does not parse", bad)
			assert.Equal(t, 1, m.Malformed)
		}
	}
	prompt, slot := ChoiceSlot.Prompt(v, f.critic[0])
	assert.Equal(t, v.ID("<choose>"), prompt[len(prompt)-1])
	assert.Equal(t, 1, slot, "example 0 shows the expert first")
	_, err = task.NewEpisode(tasks.Train, len(f.critic))
	assert.Error(t, err)
	_, err = task.NewEpisode(tasks.Test, 0)
	assert.Error(t, err, "no held-out examples")
}

func TestActionEpisodeRewards(t *testing.T) {
	f := newFixture(t)
	v := f.env.Vocab
	task, err := ActionTask(f.env, DefaultShaping(), DecodeFree, 8, f.pairs, f.pairs[:1])
	require.NoError(t, err)
	p := f.pairs[0]
	var other []tasks.Token
	for _, a := range p.State.Admissible {
		if len(p.Expert) != len(a) || v.Decode(a) != v.Decode(p.Expert) {
			other = a
			break
		}
	}
	require.NotNil(t, other)
	cases := []struct {
		name   string
		answer []tasks.Token
		reward float64
	}{
		{"expert", p.Expert, 1},
		{"admissible other", other, 0.1},
		{"a command that does not apply", words(v, "take apple 9 from fridge 1"), 0},
		{"not a command", words(v, "fridge take"), -0.5},
		{"empty", nil, -0.5},
		{"unfinished (no EOT within the turn)", words(v, "go to fridge 1 go to fridge 1 go"), -0.5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, _ := answer(t, task, 0, c.answer)
			assert.Equal(t, c.reward, r)
		})
	}
	ep, err := task.NewEpisode(tasks.Test, 0)
	require.NoError(t, err)
	assert.Equal(t, p.State.Tokens(v), ep.Prompt())
	assert.Equal(t, tasks.Turn{Kind: tasks.AS, Final: true, MaxTokens: 9}, ep.Next())
	assert.GreaterOrEqual(t, task.MaxTokens(), len(ep.Prompt())+9)
	_, err = task.Scripted(tasks.PolicySpec{Kind: "random"})
	assert.Error(t, err)
}

func TestAnyReadingRewardsTheExpertPickToo(t *testing.T) {
	f := newFixture(t)
	sh := DefaultShaping()
	sh.AdmReading = AdmAny
	task, err := ChoiceTask(f.env, ChoiceSlot, sh, f.critic, nil)
	require.NoError(t, err)
	c := f.critic[0]
	r, _ := answer(t, task, 0, words(f.env.Vocab, map[int]string{1: "1", 2: "2"}[c.ExpertSlot()]))
	assert.InDelta(t, 1.1, r, 1e-12)
}

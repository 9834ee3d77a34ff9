package run

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/rl"
	"arew/tasks"
	_ "arew/tasks/all"
)

// A transcript lists every turn with its words, kind and critique, and
// the observations between turns, exactly as the trajectory holds them.
func TestTranscript(t *testing.T) {
	task, err := tasks.New("flodial-easy", nil)
	require.NoError(t, err)
	pol, err := task.Scripted(tasks.PolicySpec{Kind: "strong"})
	require.NoError(t, err)
	tr, err := rl.PlayScripted(task, pol, tasks.Test, 0, rand.New(rand.NewPCG(1, 2)))
	require.NoError(t, err)
	ts := NewTranscript(task.Vocab(), 0, tr)
	require.Len(t, ts.Turns, len(tr.Steps))
	assert.True(t, strings.HasPrefix(ts.Prompt, "<bos> q0"))
	assert.True(t, strings.HasSuffix(ts.Prompt, "<ask>"))
	assert.Equal(t, "AS", ts.Turns[0].Kind)
	assert.Equal(t, "BT", ts.Turns[1].Kind)
	assert.True(t, ts.Turns[len(ts.Turns)-1].Final)
	assert.Equal(t, tr.Measures.Success, ts.Success)
	var words []string
	words = append(words, ts.Prompt)
	for i, turn := range ts.Turns {
		if turn.Observation != "" {
			words = append(words, turn.Observation)
		}
		words = append(words, turn.Action)
		assert.Equal(t, tr.Steps[i].Z, turn.Critique)
		assert.Equal(t, tr.Steps[i].Malformed, turn.Malformed)
	}
	all := strings.Join(words, " ")
	assert.Equal(t, task.Vocab().Decode(tr.Tokens), all, "nothing lost or added")
	md := ts.Markdown()
	assert.Contains(t, md, "AS z=")
	assert.Equal(t, len(ts.Turns)+2, strings.Count(md, "\n")-2)
}

// With its text, a transcript names the hidden truth (a fresh episode of
// the same instance tells it) and shows the table as the text face renders
// it; the Markdown carries both.
func TestTranscriptWithText(t *testing.T) {
	task, err := tasks.New("flodial-easy", nil)
	require.NoError(t, err)
	pol, err := task.Scripted(tasks.PolicySpec{Kind: "strong"})
	require.NoError(t, err)
	tr, err := rl.PlayScripted(task, pol, tasks.Val, 3, rand.New(rand.NewPCG(1, 2)))
	require.NoError(t, err)
	ts := NewTranscript(task.Vocab(), 3, tr).WithText(task, tasks.Val, tr)
	ep, err := task.NewEpisode(tasks.Val, 3)
	require.NoError(t, err)
	require.Implements(t, (*tasks.Revealer)(nil), ep)
	assert.Equal(t, ep.(tasks.Revealer).Reveal(), ts.Truth)
	assert.Contains(t, ts.Truth, "true fault: ")
	require.NotEmpty(t, ts.PromptText)
	assert.Contains(t, ts.PromptText, "q0")
	md := ts.Markdown()
	assert.Contains(t, md, ts.Truth)
	assert.Contains(t, md, ts.PromptText)

	// Samples carry the split and the text.
	res := rl.EvalResult{Trajectories: []*rl.Trajectory{tr}}
	s := Samples(task, tasks.Val, res, 5, "greedy")
	require.Len(t, s, 1)
	assert.Equal(t, "val", s[0].Split)
	assert.Equal(t, "true fault", s[0].Transcript.Truth[:10])
}

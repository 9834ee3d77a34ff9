package act

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/model"
	"arew/tasks"
	"arew/tasks/textworld"
)

func tinyModel(t *testing.T, vocab, context int) *model.Model {
	t.Helper()
	mc, err := model.NewConfig("tiny", vocab, context)
	require.NoError(t, err)
	m, err := model.New(mc, 5)
	require.NoError(t, err)
	return m
}

func TestGenerateIsGreedyAndBounded(t *testing.T) {
	m := tinyModel(t, 30, 32)
	g, err := NewGenerator(m, 0)
	require.NoError(t, err)
	prompt := []tasks.Token{tasks.BOS, 5, 6}
	a, fa, err := g.Generate(prompt, nil, 4, nil)
	require.NoError(t, err)
	b, fb, err := g.Generate(prompt, nil, 4, nil)
	require.NoError(t, err)
	assert.Equal(t, a, b, "greedy decoding is deterministic")
	assert.Equal(t, fa, fb)
	assert.LessOrEqual(t, len(a), 4)
	if !fa {
		assert.Len(t, a, 4, "unfinished means it used the whole budget")
	}
	_, _, err = g.Generate(make([]tasks.Token, 30), nil, 4, nil)
	assert.ErrorContains(t, err, "context")
	_, _, err = g.Generate(nil, nil, 4, nil)
	assert.Error(t, err)
	_, err = NewGenerator(m, -1)
	assert.Error(t, err)
	s, err := NewGenerator(m, 1)
	require.NoError(t, err)
	_, _, err = s.Generate(prompt, nil, 4, rand.New(rand.NewPCG(1, 2)))
	assert.NoError(t, err)
}

func TestPolicyDropsHistoryToFit(t *testing.T) {
	f := newFixture(t)
	v := f.env.Vocab
	var s textworld.State
	for _, p := range f.pairs {
		if len(p.State.History) == 2 {
			s = p.State
			break
		}
	}
	require.Len(t, s.History, 2)
	full := len(s.Tokens(v))
	short := s
	short.History = s.History[1:]
	ctx := len(short.Tokens(v)) + 9
	require.Less(t, ctx, full+9)
	p, err := NewPolicy("p", tinyModel(t, v.Size(), ctx), v, 8, 0)
	require.NoError(t, err)
	assert.Equal(t, short.Tokens(v), p.Prompt(s), "the oldest turn goes first")
	bare := s
	bare.History = nil
	p, err = NewPolicy("p", tinyModel(t, v.Size(), len(bare.Tokens(v))), v, 8, 0)
	require.NoError(t, err)
	assert.Nil(t, p.Prompt(s))
	assert.Nil(t, p.Act(nil, s, nil))
	assert.Equal(t, 1, p.Failures)
}

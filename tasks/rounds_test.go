package tasks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRoundsAlternateAndEnd(t *testing.T) {
	r := NewRounds(2)
	var judged []string
	query := func([]Token) ([]Token, Step) { judged = append(judged, "q"); return []Token{7}, Step{Kind: AS} }
	belief := func([]Token) ([]Token, Step) { judged = append(judged, "b"); return nil, Step{Kind: BT} }

	type state struct{ query, lastRound, final bool }
	want := []state{{true, false, false}, {false, false, false}, {true, true, false}, {false, true, true}}
	for turn, w := range want {
		require.False(t, r.Done())
		assert.Equal(t, turn, r.Turn())
		assert.Equal(t, turn/2, r.Round())
		assert.Equal(t, w, state{r.QueryTurn(), r.LastRound(), r.FinalTurn()}, "turn %d", turn)
		next := r.Next(2, 5)
		if w.query {
			assert.Equal(t, Turn{Kind: AS, MaxTokens: 2}, next)
		} else {
			assert.Equal(t, Turn{Kind: BT, Final: w.final, MaxTokens: 5}, next)
		}
		_, s, err := r.Play("toy", nil, query, belief)
		require.NoError(t, err)
		assert.Equal(t, turn, s.Turn)
	}
	assert.True(t, r.Done())
	assert.Equal(t, []string{"q", "b", "q", "b"}, judged)
	_, _, err := r.Play("toy", nil, query, belief)
	assert.ErrorContains(t, err, "toy: step after the episode ended")

	steps := r.Steps()
	assert.Len(t, steps, 4)
	_ = append(steps, Step{Turn: 99})
	assert.Len(t, r.Steps(), 4, "a caller's append does not reach the episode")
}

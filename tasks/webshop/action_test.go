package webshop

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
	"arew/tasks/textworld"
	"arew/tasks/textworld/textworldtest"
)

func TestParseAction(t *testing.T) {
	for _, tc := range []struct {
		text string
		want Action
		bad  bool
	}{
		{text: "search [ ceramic large mug ]", want: Action{Search, []string{"ceramic", "large", "mug"}}},
		{text: "click [ p17 ]", want: Action{Click, []string{"p17"}}},
		{text: "click [ back to search ]", want: Action{Click, BackToSearch}},
		{text: "click [ next > ]", want: Action{Click, NextPage}},
		{text: "click [ < prev ]", want: Action{Click, PrevPage}},
		{text: "click [ buy now ]", want: Action{Click, BuyNow}},
		{text: "search [ ]", bad: true},
		{text: "search ceramic mug", bad: true},
		{text: "search [ a b c d e f g h i ]", bad: true},
		{text: "click [ [ p1 ] ]", bad: true},
		{text: "buy [ now ]", bad: true},
		{text: "click [ p1", bad: true},
		{text: "", bad: true},
	} {
		a, err := ParseAction(textworld.Words(tc.text))
		if tc.bad {
			assert.Error(t, err, tc.text)
			continue
		}
		require.NoError(t, err, tc.text)
		assert.Equal(t, tc.want, a)
		assert.Equal(t, textworld.Words(tc.text), a.Words())
	}
}

// FuzzParseAction: any text parses or fails cleanly; what parses renders
// back to the same words.
func FuzzParseAction(f *testing.F) {
	for _, s := range []string{"search [ ceramic mug ]", "click [ next > ]", "click [ p3 ]", "[ ]", "search [ [ ] ]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w := textworld.Words(s)
		a, err := ParseAction(w)
		if err != nil {
			return
		}
		assert.Equal(t, w, a.Words())
	})
}

// FuzzStep feeds arbitrary token ids to Step, interleaved with expert
// actions (textworldtest.PlayFuzz).
func FuzzStep(f *testing.F) {
	f.Add([]byte{5, 6, 7, 0xFE, 1, 2, 3}, uint8(0))
	f.Add([]byte{}, uint8(3))
	f.Add([]byte{120, 125, 122, 126, 0xFE, 0xFE}, uint8(9))
	w := store(f)
	f.Fuzz(func(t *testing.T, data []byte, index uint8) {
		e, err := w.NewEnv(textworld.Test, int(index)%w.cfg.Test)
		require.NoError(t, err)
		textworldtest.PlayFuzz(t, e, textworldtest.Turns(data, func(b byte) tasks.Token { return tasks.Token(b) + tasks.Token(len(data)%3)*100 }))
		assert.True(t, e.Reward() >= 0 && e.Reward() <= 1)
	})
}

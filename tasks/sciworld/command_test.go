package sciworld

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
	"arew/tasks/textworld"
	"arew/tasks/textworld/textworldtest"
)

func TestParseCommand(t *testing.T) {
	for _, tc := range []struct {
		text string
		want Command
		bad  bool
	}{
		{text: "look around", want: Command{Verb: LookAround}},
		{text: "inventory", want: Command{Verb: Inventory}},
		{text: "wait", want: Command{Verb: Wait}},
		{text: "go to kitchen", want: Command{Verb: GoTo, X: "kitchen"}},
		{text: "open freezer", want: Command{Verb: Open, X: "freezer"}},
		{text: "close cabinet", want: Command{Verb: Close, X: "cabinet"}},
		{text: "activate stove", want: Command{Verb: Activate, X: "stove"}},
		{text: "deactivate stove", want: Command{Verb: Deactivate, X: "stove"}},
		{text: "pick up pot", want: Command{Verb: PickUp, X: "pot"}},
		{text: "move fork to circuit", want: Command{Verb: MoveTo, X: "fork", Y: "circuit"}},
		{text: "pour waterjug into flowerpot", want: Command{Verb: PourInto, X: "waterjug", Y: "flowerpot"}},
		{text: "focus on water", want: Command{Verb: FocusOn, X: "water"}},
		{text: "mix bowl", want: Command{Verb: MixThing, X: "bowl"}},
		{text: "go to stove", bad: true},
		{text: "go kitchen", bad: true},
		{text: "pick pot", bad: true},
		{text: "move fork circuit", bad: true},
		{text: "pour fork to bowl", bad: true},
		{text: "open", bad: true},
		{text: "open sesame", bad: true},
		{text: "wait wait", bad: true},
		{text: "", bad: true},
	} {
		c, err := ParseCommand(textworld.Words(tc.text))
		if tc.bad {
			assert.Error(t, err, tc.text)
			continue
		}
		require.NoError(t, err, tc.text)
		assert.Equal(t, tc.want, c)
		assert.Equal(t, textworld.Words(tc.text), c.Words())
	}
}

// FuzzParseCommand: any text parses or fails cleanly; what parses renders
// back to the same words.
func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"move fork to circuit", "pour waterjug into flowerpot", "look around", "go to hallway", "mix bowl", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w := textworld.Words(s)
		c, err := ParseCommand(w)
		if err != nil {
			return
		}
		assert.Equal(t, w, c.Words())
	})
}

// FuzzStep feeds arbitrary token ids to Step, interleaved with expert
// actions (textworldtest.PlayFuzz).
func FuzzStep(f *testing.F) {
	f.Add([]byte{5, 6, 7, 0xFE, 1, 2, 3}, uint8(0))
	f.Add([]byte{}, uint8(3))
	f.Add([]byte{200, 201, 0xFE, 0xFE, 130}, uint8(9))
	w := lab(f)
	f.Fuzz(func(t *testing.T, data []byte, index uint8) {
		e, err := w.NewEnv(textworld.Test, int(index)%w.cfg.Test)
		require.NoError(t, err)
		textworldtest.PlayFuzz(t, e, textworldtest.Turns(data, func(b byte) tasks.Token { return tasks.Token(b) - 2 }))
	})
}

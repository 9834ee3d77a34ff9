package alfworld

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
		{text: "go to cabinet 3", want: Command{Verb: GoTo, Rec: Thing{"cabinet", 3}}},
		{text: "open fridge 1", want: Command{Verb: Open, Rec: Thing{"fridge", 1}}},
		{text: "close drawer 2", want: Command{Verb: Close, Rec: Thing{"drawer", 2}}},
		{text: "take apple 1 from countertop 2", want: Command{Verb: Take, Obj: Thing{"apple", 1}, Rec: Thing{"countertop", 2}}},
		{text: "put mug 2 in cabinet 1", want: Command{Verb: Put, Obj: Thing{"mug", 2}, Rec: Thing{"cabinet", 1}, Prep: "in"}},
		{text: "put mug 2 on countertop 1", want: Command{Verb: Put, Obj: Thing{"mug", 2}, Rec: Thing{"countertop", 1}, Prep: "on"}},
		{text: "clean cloth 1 with sinkbasin 1", want: Command{Verb: CleanWith, Obj: Thing{"cloth", 1}, Rec: Thing{"sinkbasin", 1}}},
		{text: "heat egg 1 with microwave 1", want: Command{Verb: HeatWith, Obj: Thing{"egg", 1}, Rec: Thing{"microwave", 1}}},
		{text: "cool pot 1 with fridge 1", want: Command{Verb: CoolWith, Obj: Thing{"pot", 1}, Rec: Thing{"fridge", 1}}},
		{text: "use desklamp 1", want: Command{Verb: Use, Obj: Thing{"desklamp", 1}}},
		{text: "examine book 2", want: Command{Verb: ExamineThing, Obj: Thing{"book", 2}}},
		{text: "examine shelf 1", want: Command{Verb: ExamineThing, Rec: Thing{"shelf", 1}}},
		{text: "look", want: Command{Verb: Look}},
		{text: "inventory", want: Command{Verb: Inventory}},
		{text: "", bad: true},
		{text: "go cabinet 1", bad: true},
		{text: "go to apple 1", bad: true},
		{text: "take apple from fridge 1", bad: true},
		{text: "take apple 1 in fridge 1", bad: true},
		{text: "put apple 1 under fridge 1", bad: true},
		{text: "clean apple 1 from sinkbasin 1", bad: true},
		{text: "open fridge 0", bad: true},
		{text: "open fridge 01", bad: true},
		{text: "open fridge 101", bad: true},
		{text: "look around", bad: true},
		{text: "use", bad: true},
		{text: "examine", bad: true},
	} {
		c, err := ParseCommand(textworld.Words(tc.text))
		if tc.bad {
			assert.Error(t, err, tc.text)
			continue
		}
		require.NoError(t, err, tc.text)
		assert.Equal(t, tc.want, c, tc.text)
		assert.Equal(t, tc.text, textJoin(c.Words()))
	}
}

// FuzzParseCommand: any text parses or fails cleanly, and what parses
// renders back to the same words.
func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"go to cabinet 3", "put mug 2 in cabinet 1", "examine shelf 1", "take apple 1 from countertop 2", "look", "x y z", ""} {
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
	f.Add([]byte{200, 255, 0, 0xFE, 0xFE}, uint8(9))
	w := world(f)
	f.Fuzz(func(t *testing.T, data []byte, index uint8) {
		e, err := w.NewEnv(textworld.Test, int(index)%w.cfg.Test)
		require.NoError(t, err)
		textworldtest.PlayFuzz(t, e, textworldtest.Turns(data, func(b byte) tasks.Token { return tasks.Token(int8(b)) }))
	})
}

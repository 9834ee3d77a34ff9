package sciworld

import (
	"testing"

	"arew/tasks"
	"arew/tasks/textworld/textworldtest"
)

func TestParseCommand(t *testing.T) {
	textworldtest.CheckParse(t, ParseCommand, []textworldtest.Parse[Command]{
		{Text: "look around", Want: Command{Verb: LookAround}},
		{Text: "inventory", Want: Command{Verb: Inventory}},
		{Text: "wait", Want: Command{Verb: Wait}},
		{Text: "go to kitchen", Want: Command{Verb: GoTo, X: "kitchen"}},
		{Text: "open freezer", Want: Command{Verb: Open, X: "freezer"}},
		{Text: "close cabinet", Want: Command{Verb: Close, X: "cabinet"}},
		{Text: "activate stove", Want: Command{Verb: Activate, X: "stove"}},
		{Text: "deactivate stove", Want: Command{Verb: Deactivate, X: "stove"}},
		{Text: "pick up pot", Want: Command{Verb: PickUp, X: "pot"}},
		{Text: "move fork to circuit", Want: Command{Verb: MoveTo, X: "fork", Y: "circuit"}},
		{Text: "pour waterjug into flowerpot", Want: Command{Verb: PourInto, X: "waterjug", Y: "flowerpot"}},
		{Text: "focus on water", Want: Command{Verb: FocusOn, X: "water"}},
		{Text: "mix bowl", Want: Command{Verb: MixThing, X: "bowl"}},
		{Text: "go to stove", Bad: true},
		{Text: "go kitchen", Bad: true},
		{Text: "pick pot", Bad: true},
		{Text: "move fork circuit", Bad: true},
		{Text: "pour fork to bowl", Bad: true},
		{Text: "open", Bad: true},
		{Text: "open sesame", Bad: true},
		{Text: "wait wait", Bad: true},
		{Text: "", Bad: true},
	})
}

// FuzzParseCommand: any text parses or fails cleanly; what parses renders
// back to the same words.
func FuzzParseCommand(f *testing.F) {
	textworldtest.FuzzParse(f, ParseCommand, "move fork to circuit", "pour waterjug into flowerpot", "look around", "go to hallway", "mix bowl", "x")
}

// FuzzStep feeds arbitrary token ids to Step, interleaved with expert
// actions (textworldtest.FuzzStep).
func FuzzStep(f *testing.F) {
	f.Add([]byte{5, 6, 7, 0xFE, 1, 2, 3}, uint8(0))
	f.Add([]byte{}, uint8(3))
	f.Add([]byte{200, 201, 0xFE, 0xFE, 130}, uint8(9))
	w := lab(f)
	textworldtest.FuzzStep(f, w, w.cfg.Test, func(_ []byte, b byte) tasks.Token { return tasks.Token(b) - 2 })
}

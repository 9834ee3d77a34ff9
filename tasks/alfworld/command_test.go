package alfworld

import (
	"testing"

	"arew/tasks"
	"arew/tasks/textworld/textworldtest"
)

func TestParseCommand(t *testing.T) {
	textworldtest.CheckParse(t, ParseCommand, []textworldtest.Parse[Command]{
		{Text: "go to cabinet 3", Want: Command{Verb: GoTo, Rec: Thing{"cabinet", 3}}},
		{Text: "open fridge 1", Want: Command{Verb: Open, Rec: Thing{"fridge", 1}}},
		{Text: "close drawer 2", Want: Command{Verb: Close, Rec: Thing{"drawer", 2}}},
		{Text: "take apple 1 from countertop 2", Want: Command{Verb: Take, Obj: Thing{"apple", 1}, Rec: Thing{"countertop", 2}}},
		{Text: "put mug 2 in cabinet 1", Want: Command{Verb: Put, Obj: Thing{"mug", 2}, Rec: Thing{"cabinet", 1}, Prep: "in"}},
		{Text: "put mug 2 on countertop 1", Want: Command{Verb: Put, Obj: Thing{"mug", 2}, Rec: Thing{"countertop", 1}, Prep: "on"}},
		{Text: "clean cloth 1 with sinkbasin 1", Want: Command{Verb: CleanWith, Obj: Thing{"cloth", 1}, Rec: Thing{"sinkbasin", 1}}},
		{Text: "heat egg 1 with microwave 1", Want: Command{Verb: HeatWith, Obj: Thing{"egg", 1}, Rec: Thing{"microwave", 1}}},
		{Text: "cool pot 1 with fridge 1", Want: Command{Verb: CoolWith, Obj: Thing{"pot", 1}, Rec: Thing{"fridge", 1}}},
		{Text: "use desklamp 1", Want: Command{Verb: Use, Obj: Thing{"desklamp", 1}}},
		{Text: "examine book 2", Want: Command{Verb: ExamineThing, Obj: Thing{"book", 2}}},
		{Text: "examine shelf 1", Want: Command{Verb: ExamineThing, Rec: Thing{"shelf", 1}}},
		{Text: "look", Want: Command{Verb: Look}},
		{Text: "inventory", Want: Command{Verb: Inventory}},
		{Text: "", Bad: true},
		{Text: "go cabinet 1", Bad: true},
		{Text: "go to apple 1", Bad: true},
		{Text: "take apple from fridge 1", Bad: true},
		{Text: "take apple 1 in fridge 1", Bad: true},
		{Text: "put apple 1 under fridge 1", Bad: true},
		{Text: "clean apple 1 from sinkbasin 1", Bad: true},
		{Text: "open fridge 0", Bad: true},
		{Text: "open fridge 01", Bad: true},
		{Text: "open fridge 101", Bad: true},
		{Text: "look around", Bad: true},
		{Text: "use", Bad: true},
		{Text: "examine", Bad: true},
	})
}

// FuzzParseCommand: any text parses or fails cleanly, and what parses
// renders back to the same words.
func FuzzParseCommand(f *testing.F) {
	textworldtest.FuzzParse(f, ParseCommand, "go to cabinet 3", "put mug 2 in cabinet 1", "examine shelf 1", "take apple 1 from countertop 2", "look", "x y z", "")
}

// FuzzStep feeds arbitrary token ids to Step, interleaved with expert
// actions (textworldtest.FuzzStep).
func FuzzStep(f *testing.F) {
	f.Add([]byte{5, 6, 7, 0xFE, 1, 2, 3}, uint8(0))
	f.Add([]byte{}, uint8(3))
	f.Add([]byte{200, 255, 0, 0xFE, 0xFE}, uint8(9))
	w := world(f)
	textworldtest.FuzzStep(f, w, w.cfg.Test, func(_ []byte, b byte) tasks.Token { return tasks.Token(int8(b)) })
}

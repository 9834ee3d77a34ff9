package webshop

import (
	"testing"

	"arew/tasks"
	"arew/tasks/textworld/textworldtest"
)

func TestParseAction(t *testing.T) {
	textworldtest.CheckParse(t, ParseAction, []textworldtest.Parse[Action]{
		{Text: "search [ ceramic large mug ]", Want: Action{Search, []string{"ceramic", "large", "mug"}}},
		{Text: "click [ p17 ]", Want: Action{Click, []string{"p17"}}},
		{Text: "click [ back to search ]", Want: Action{Click, BackToSearch}},
		{Text: "click [ next > ]", Want: Action{Click, NextPage}},
		{Text: "click [ < prev ]", Want: Action{Click, PrevPage}},
		{Text: "click [ buy now ]", Want: Action{Click, BuyNow}},
		{Text: "search [ ]", Bad: true},
		{Text: "search ceramic mug", Bad: true},
		{Text: "search [ a b c d e f g h i ]", Bad: true},
		{Text: "click [ [ p1 ] ]", Bad: true},
		{Text: "buy [ now ]", Bad: true},
		{Text: "click [ p1", Bad: true},
		{Text: "", Bad: true},
	})
}

// FuzzParseAction: any text parses or fails cleanly; what parses renders
// back to the same words.
func FuzzParseAction(f *testing.F) {
	textworldtest.FuzzParse(f, ParseAction, "search [ ceramic mug ]", "click [ next > ]", "click [ p3 ]", "[ ]", "search [ [ ] ]")
}

// FuzzStep feeds arbitrary token ids to Step, interleaved with expert
// actions (textworldtest.FuzzStep).
func FuzzStep(f *testing.F) {
	f.Add([]byte{5, 6, 7, 0xFE, 1, 2, 3}, uint8(0))
	f.Add([]byte{}, uint8(3))
	f.Add([]byte{120, 125, 122, 126, 0xFE, 0xFE}, uint8(9))
	w := store(f)
	textworldtest.FuzzStep(f, w, w.cfg.Test, func(data []byte, b byte) tasks.Token { return tasks.Token(b) + tasks.Token(len(data)%3)*100 })
}

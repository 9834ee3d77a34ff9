package alfworld

import (
	"maps"
	"slices"
	"strconv"

	"arew/tasks/textworld"
)

// Grammar is the command grammar of ParseCommand as templates (textworld.Grammar):
//
//	look | inventory | go to R N | open R N | close R N | use O N
//	examine O N | examine R N | take O N from R N | put O N in R N
//	put O N on R N | clean O N with R N | heat O N with R N | cool O N with R N
//
// with R a receptacle class, O an object type and N a number 1 …
// textworld.MaxNumber. Every command it holds parses, and every command
// that parses is in it (rl/act TestGrammarIsTheParser).
func (w *World) Grammar() textworld.Grammar {
	recs := slices.Sorted(maps.Keys(isRecClass))
	objs := slices.Sorted(maps.Keys(isObjType))
	var nums []string
	for n := 1; n <= textworld.MaxNumber; n++ {
		nums = append(nums, strconv.Itoa(n))
	}
	R, O, N := textworld.One(recs...), textworld.One(objs...), textworld.One(nums...)
	one := textworld.One
	return textworld.Grammar{
		{one("look")},
		{one("inventory")},
		{one("go"), one("to"), R, N},
		{one("open", "close"), R, N},
		{one("use"), O, N},
		{one("examine"), one(append(slices.Clone(objs), recs...)...), N},
		{one("take"), O, N, one("from"), R, N},
		{one("put"), O, N, one("in", "on"), R, N},
		{one("clean", "heat", "cool"), O, N, one("with"), R, N},
	}
}

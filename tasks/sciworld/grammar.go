package sciworld

import (
	"maps"
	"slices"

	"arew/tasks/textworld"
)

// Grammar is the template actions of ParseCommand as templates
// (textworld.Grammar):
//
//	look around | inventory | wait | go to ROOM | pick up X | focus on X
//	move X to Y | pour X into Y | open X | close X | activate X
//	deactivate X | mix X
//
// with X, Y names of the lab's things. Every action it holds parses, and
// every action that parses is in it (rl/act TestGrammarIsTheParser).
func (w *World) Grammar() textworld.Grammar {
	names := textworld.One(slices.Sorted(maps.Keys(isName))...)
	rooms := textworld.One(slices.Sorted(maps.Keys(isRoom))...)
	one := textworld.One
	return textworld.Grammar{
		{one("look"), one("around")},
		{one("inventory")},
		{one("wait")},
		{one("go"), one("to"), rooms},
		{one("pick"), one("up"), names},
		{one("focus"), one("on"), names},
		{one("move"), names, one("to"), names},
		{one("pour"), names, one("into"), names},
		{one("open", "close", "activate", "deactivate", "mix"), names},
	}
}

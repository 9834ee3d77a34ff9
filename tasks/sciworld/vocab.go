package sciworld

import (
	"arew/tasks"
	"arew/tasks/textworld"
)

var textWords = []string{
	"look", "around", "inventory", "wait", "go", "to", "open", "close", "activate", "deactivate",
	"pick", "up", "move", "pour", "into", "focus", "on", "mix",
	"your", "task", "is", "boil", "water", ".", "first", ",", "the", "melt", "find", "out", "if",
	"electrically", "conductive", "it", "not", "grow", "a", "plant", "from", "make", "when", "you", "are", "done",
	"this", "see", "that", "closed", "off", "in", "now", "empty", "carry", "nothing",
	"bulb", "turns", "stays", "circuit", ":", "wrong", "box", "failed", "of", "paints",
	"melts", "boils", "seed", "sprouts", "grows",
}

func newVocab() *tasks.Vocab {
	var names []string
	names = append(names, rooms...)
	for _, f := range fixtures {
		names = append(names, f.name)
	}
	for _, o := range testObjects {
		names = append(names, o.name)
	}
	names = append(names, meltables...)
	names = append(names, primaries...)
	names = append(names, products()...)
	names = append(names, carried...)
	return textworld.NewVocab(textWords, stateWords, names)
}

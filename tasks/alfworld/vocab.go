package alfworld

import (
	"arew/tasks"
	"arew/tasks/textworld"
)

// Verbs, prepositions and the words of observations and goals.
var (
	commandWords = []string{"go", "to", "open", "close", "take", "from", "put", "in", "on", "clean", "heat", "cool", "with", "use", "examine", "look", "inventory"}
	textWords    = []string{
		"you", "arrive", "at", "the", "is", "closed", ",", "see", "a", "nothing", ".", "it",
		"pick", "up", "using", "turn", "are", "carrying", ":", "not", "anything", "facing",
		"middle", "of", "looking", "quickly", "around", "this", "hot", "your", "task", "two", "under",
	}
)

func newVocab() *tasks.Vocab {
	var recs, objs []string
	for _, r := range rooms {
		recs = append(recs, r.name)
		for _, c := range r.recs {
			recs = append(recs, c.name)
		}
	}
	for _, o := range objects {
		objs = append(objs, o.name)
	}
	objs = append(objs, lampType)
	return textworld.NewVocab(commandWords, textWords, recs, objs)
}

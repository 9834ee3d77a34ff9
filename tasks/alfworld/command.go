package alfworld

import (
	"fmt"
	"strconv"

	"arew/tasks/textworld"
)

// Verb is the head of a command.
type Verb uint8

const (
	GoTo Verb = iota
	Open
	Close
	Take
	Put
	CleanWith
	HeatWith
	CoolWith
	Use
	ExamineThing
	Look
	Inventory
)

// Thing names a numbered object or receptacle: "apple 1", "cabinet 3".
type Thing struct {
	Name string
	Num  int
}

func (t Thing) words() []string { return []string{t.Name, strconv.Itoa(t.Num)} }

// Command is a parsed command of the grammar
//
//	go to R | open R | close R | take O from R | put O in R | put O on R
//	clean O with R | heat O with R | cool O with R | use O | examine O
//	examine R | look | inventory
//
// where O is an object type and R a receptacle class, each followed by its
// number (1 … textworld.MaxNumber).
type Command struct {
	Verb Verb
	Obj  Thing  // the object (take, put, clean/heat/cool, use, examine O)
	Rec  Thing  // the receptacle (go to, open, close, take, put, …, examine R)
	Prep string // "in" or "on" for put
}

var isRecClass, isObjType = func() (map[string]bool, map[string]bool) {
	r, o := map[string]bool{}, map[string]bool{lampType: true}
	for _, rt := range rooms {
		for _, c := range rt.recs {
			r[c.name] = true
		}
	}
	for _, ot := range objects {
		o[ot.name] = true
	}
	return r, o
}()

func parseThing(words []string, kinds map[string]bool, what string) (Thing, error) {
	if len(words) != 2 {
		return Thing{}, fmt.Errorf("%s: want a name and a number, got %d words", what, len(words))
	}
	if !kinds[words[0]] {
		return Thing{}, fmt.Errorf("%s: unknown name %q", what, words[0])
	}
	n, err := strconv.Atoi(words[1])
	if err != nil || n < 1 || n > textworld.MaxNumber || strconv.Itoa(n) != words[1] {
		return Thing{}, fmt.Errorf("%s: bad number %q", what, words[1])
	}
	return Thing{words[0], n}, nil
}

// ParseCommand reads a command from words; anything outside the grammar is
// an error (the environment answers it with "nothing happens .").
func ParseCommand(w []string) (Command, error) {
	if len(w) == 0 {
		return Command{}, fmt.Errorf("empty command")
	}
	obj := func(ws []string) (Thing, error) { return parseThing(ws, isObjType, "object") }
	rec := func(ws []string) (Thing, error) { return parseThing(ws, isRecClass, "receptacle") }
	bad := fmt.Errorf("not a command: %q", w)
	var c Command
	var err error
	switch w[0] {
	case "look", "inventory":
		if len(w) != 1 {
			return c, bad
		}
		c.Verb = map[string]Verb{"look": Look, "inventory": Inventory}[w[0]]
		return c, nil
	case "go":
		if len(w) != 4 || w[1] != "to" {
			return c, bad
		}
		c.Verb = GoTo
		c.Rec, err = rec(w[2:])
	case "open", "close":
		c.Verb = map[string]Verb{"open": Open, "close": Close}[w[0]]
		c.Rec, err = rec(w[1:])
	case "use":
		c.Verb = Use
		c.Obj, err = obj(w[1:])
	case "examine":
		c.Verb = ExamineThing
		if len(w) > 1 && isRecClass[w[1]] {
			c.Rec, err = rec(w[1:])
		} else {
			c.Obj, err = obj(w[1:])
		}
	case "take", "put", "clean", "heat", "cool":
		if len(w) != 6 {
			return c, bad
		}
		link := map[string]string{"take": "from", "put": w[3], "clean": "with", "heat": "with", "cool": "with"}[w[0]]
		if w[3] != link || (w[0] == "put" && link != "in" && link != "on") {
			return c, bad
		}
		c.Verb = map[string]Verb{"take": Take, "put": Put, "clean": CleanWith, "heat": HeatWith, "cool": CoolWith}[w[0]]
		if w[0] == "put" {
			c.Prep = link
		}
		if c.Obj, err = obj(w[1:3]); err == nil {
			c.Rec, err = rec(w[4:6])
		}
	default:
		return c, bad
	}
	if err != nil {
		return Command{}, err
	}
	return c, nil
}

// Words renders the command; ParseCommand(c.Words()) gives c back.
func (c Command) Words() []string {
	switch c.Verb {
	case Look:
		return []string{"look"}
	case Inventory:
		return []string{"inventory"}
	case GoTo:
		return append([]string{"go", "to"}, c.Rec.words()...)
	case Open, Close:
		return append([]string{map[Verb]string{Open: "open", Close: "close"}[c.Verb]}, c.Rec.words()...)
	case Use:
		return append([]string{"use"}, c.Obj.words()...)
	case ExamineThing:
		if c.Rec.Name != "" {
			return append([]string{"examine"}, c.Rec.words()...)
		}
		return append([]string{"examine"}, c.Obj.words()...)
	}
	head := map[Verb]string{Take: "take", Put: "put", CleanWith: "clean", HeatWith: "heat", CoolWith: "cool"}[c.Verb]
	link := map[Verb]string{Take: "from", Put: c.Prep, CleanWith: "with", HeatWith: "with", CoolWith: "with"}[c.Verb]
	out := append([]string{head}, c.Obj.words()...)
	out = append(out, link)
	return append(out, c.Rec.words()...)
}

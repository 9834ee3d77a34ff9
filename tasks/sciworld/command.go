package sciworld

import (
	"fmt"
	"slices"
)

// Verb is a template action.
type Verb uint8

const (
	LookAround Verb = iota
	Inventory
	Wait
	GoTo
	Open
	Close
	Activate
	Deactivate
	PickUp
	MoveTo
	PourInto
	FocusOn
	MixThing
)

// Command is a parsed template action:
//
//	look around | inventory | wait | go to ROOM | open X | close X
//	activate X | deactivate X | pick up X | move X to Y | pour X into Y
//	focus on X | mix X
//
// with X, Y names of things of the lab (one word each).
type Command struct {
	Verb Verb
	X, Y string
}

var isName, isRoom = func() (map[string]bool, map[string]bool) {
	n, r := map[string]bool{}, map[string]bool{}
	for _, f := range fixtures {
		n[f.name] = true
	}
	for _, o := range testObjects {
		n[o.name] = true
	}
	for _, w := range append(append(append(append([]string{"water", "seed"}, meltables...), primaries...), carried...), products()...) {
		n[w] = true
	}
	for _, x := range rooms {
		r[x] = true
	}
	return n, r
}()

func products() []string {
	var out []string
	for _, p := range mixes {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// ParseCommand reads a template action from words.
func ParseCommand(w []string) (Command, error) {
	bad := fmt.Errorf("not a lab action: %q", w)
	name := func(s string) bool { return isName[s] }
	switch {
	case slices.Equal(w, []string{"look", "around"}):
		return Command{Verb: LookAround}, nil
	case slices.Equal(w, []string{"inventory"}):
		return Command{Verb: Inventory}, nil
	case slices.Equal(w, []string{"wait"}):
		return Command{Verb: Wait}, nil
	case len(w) == 3 && w[0] == "go" && w[1] == "to" && isRoom[w[2]]:
		return Command{Verb: GoTo, X: w[2]}, nil
	case len(w) == 3 && w[0] == "pick" && w[1] == "up" && name(w[2]):
		return Command{Verb: PickUp, X: w[2]}, nil
	case len(w) == 3 && w[0] == "focus" && w[1] == "on" && name(w[2]):
		return Command{Verb: FocusOn, X: w[2]}, nil
	case len(w) == 4 && w[0] == "move" && w[2] == "to" && name(w[1]) && name(w[3]):
		return Command{Verb: MoveTo, X: w[1], Y: w[3]}, nil
	case len(w) == 4 && w[0] == "pour" && w[2] == "into" && name(w[1]) && name(w[3]):
		return Command{Verb: PourInto, X: w[1], Y: w[3]}, nil
	case len(w) == 2 && name(w[1]):
		v, ok := map[string]Verb{"open": Open, "close": Close, "activate": Activate, "deactivate": Deactivate, "mix": MixThing}[w[0]]
		if ok {
			return Command{Verb: v, X: w[1]}, nil
		}
	}
	return Command{}, bad
}

// Words renders the command; ParseCommand(c.Words()) gives c back.
func (c Command) Words() []string {
	switch c.Verb {
	case LookAround:
		return []string{"look", "around"}
	case Inventory:
		return []string{"inventory"}
	case Wait:
		return []string{"wait"}
	case GoTo:
		return []string{"go", "to", c.X}
	case PickUp:
		return []string{"pick", "up", c.X}
	case FocusOn:
		return []string{"focus", "on", c.X}
	case MoveTo:
		return []string{"move", c.X, "to", c.Y}
	case PourInto:
		return []string{"pour", c.X, "into", c.Y}
	}
	return []string{map[Verb]string{Open: "open", Close: "close", Activate: "activate", Deactivate: "deactivate", MixThing: "mix"}[c.Verb], c.X}
}

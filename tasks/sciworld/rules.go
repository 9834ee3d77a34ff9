package sciworld

import (
	"slices"
	"strings"

	"arew/tasks"
	"arew/tasks/textworld"
)

func (e *Env) adjacent(r int) bool {
	return r != e.room && (e.room == hallway || r == hallway)
}

// holdsSubstance: container c has a substance directly in it.
func (e *Env) holdsSubstance(c int) bool {
	for _, t := range e.things {
		if t.parent == c && t.substance {
			return true
		}
	}
	return false
}

// paintsIn lists the primary paints directly in c, sorted.
func (e *Env) paintsIn(c int) []string {
	var out []string
	for _, t := range e.things {
		if t.parent == c && slices.Contains(primaries, t.name) {
			out = append(out, t.name)
		}
	}
	slices.Sort(out)
	return out
}

// applicable is the rule book of the lab.
func (e *Env) applicable(c Command) bool {
	x, y := e.find(c.X), e.find(c.Y)
	switch c.Verb {
	case LookAround, Inventory, Wait:
		return true
	case GoTo:
		return e.adjacent(slices.Index(rooms, c.X))
	case Open, Close:
		return e.accessible(x) && e.things[x].openable && e.things[x].open == (c.Verb == Close)
	case Activate:
		return e.accessible(x) && e.things[x].device && !e.things[x].active
	case Deactivate:
		return e.accessible(x) && e.things[x].device && e.things[x].active
	case PickUp:
		return e.accessible(x) && e.things[x].portable && e.things[x].parent != inventory
	case MoveTo:
		if !e.accessible(x) || !e.accessible(y) || x == y || !e.things[x].portable || e.inside(y, x) || e.things[x].parent == y {
			return false
		}
		return e.things[y].container || e.things[y].fixture
	case PourInto:
		if !e.accessible(x) || !e.accessible(y) || x == y || !e.things[y].container || e.inside(y, x) {
			return false
		}
		return e.things[x].pourable || (e.things[x].portable && e.things[x].container && e.holdsSubstance(x))
	case FocusOn:
		return e.accessible(x)
	case MixThing:
		_, ok := mixes[[2]string(e.pair(x))]
		return e.accessible(x) && e.things[x].container && ok
	}
	return false
}

// pair is the two primaries in x, or empty names.
func (e *Env) pair(x int) [2]string {
	if x < 0 {
		return [2]string{}
	}
	ps := e.paintsIn(x)
	if len(ps) != 2 {
		return [2]string{}
	}
	return [2]string{ps[0], ps[1]}
}

// apply carries out an applicable command and returns its observation.
func (e *Env) apply(c Command) string {
	x, y := e.find(c.X), e.find(c.Y)
	switch c.Verb {
	case LookAround:
		return e.describe()
	case Inventory:
		return e.inventoryText()
	case Wait:
		return e.wait()
	case GoTo:
		e.room = slices.Index(rooms, c.X)
		return "you move to the " + c.X + " . " + e.describe()
	case Open:
		e.things[x].open = true
		return "the " + c.X + " is now open . " + e.contents(x)
	case Close:
		e.things[x].open = false
		return "the " + c.X + " is now closed ."
	case Activate:
		if c.X == "circuit" {
			return e.testCircuit()
		}
		e.things[x].active = true
		return "the " + c.X + " is now on ."
	case Deactivate:
		e.things[x].active = false
		return "the " + c.X + " is now off ."
	case PickUp:
		e.things[x].parent = inventory
		return "you move the " + c.X + " to the inventory ."
	case MoveTo:
		e.things[x].parent = y
		return "you move the " + c.X + " to the " + c.Y + " ." + e.filed(x, y)
	case PourInto:
		if e.things[x].pourable {
			e.things[x].parent = y
		} else {
			for i := range e.things {
				if e.things[i].parent == x && e.things[i].substance {
					e.things[i].parent = y
				}
			}
		}
		return "you pour the " + c.X + " into the " + c.Y + " ."
	case FocusOn:
		if c.X != e.in.Focus {
			e.failed = true
			return "you focus on the " + c.X + " . that is not the focus of the task . the task failed ."
		}
		e.focused = true
		if e.in.Procedure == Mix {
			e.success = true
		}
		return "you focus on the " + c.X + " ."
	case MixThing:
		pr := mixes[e.pair(x)]
		for i := range e.things {
			if e.things[i].parent == x && slices.Contains(primaries, e.things[i].name) {
				e.things[i].parent = nowhere
			}
		}
		for i := range e.things {
			if e.things[i].name == pr {
				e.things[i].parent = x
			}
		}
		return "the paints mix into " + pr + " ."
	}
	return strings.Join(textworld.NothingHappens, " ")
}

func (e *Env) contents(c int) string {
	var items []string
	for i := range e.things {
		if e.inside(i, c) && e.accessible(i) {
			items = append(items, e.entry(i))
		}
	}
	if len(items) == 0 {
		return "it is empty ."
	}
	return "you see " + strings.Join(items, " , ") + " ."
}

// testCircuit lights the bulb if a conductor lies on the circuit, and
// marks the task's object tested.
func (e *Env) testCircuit() string {
	c := e.find("circuit")
	on, any := false, false
	for i, t := range e.things {
		if t.parent == c {
			any = true
			on = on || t.conductor
			if t.name == e.in.Focus {
				e.things[i].tested = true
			}
		}
	}
	if on {
		return "the bulb turns on ."
	}
	if !any {
		return "the circuit is open : nothing is on it . the bulb stays off ."
	}
	return "the bulb stays off ."
}

// filed ends the conductivity task when its object goes into a box.
func (e *Env) filed(x, y int) string {
	box := e.things[y].name
	if e.in.Procedure != Conductivity || e.things[x].name != e.in.Focus || (box != "redbox" && box != "greenbox") {
		return ""
	}
	if e.focused && (box == "redbox") == e.things[x].conductor {
		e.success = true
		return " the task is done ."
	}
	e.failed = true
	return " that is the wrong box . the task failed ."
}

// wait lets time pass: what sits on an active stove heats one step (a solid
// melts, water boils on the second step); a seed in a watered flowerpot
// grows, a plant on the second step.
func (e *Env) wait() string {
	out := "you wait ."
	stove, pot := e.find("stove"), e.find("flowerpot")
	for i := range e.things {
		t := &e.things[i]
		if t.substance && e.things[stove].active && e.inside(i, stove) {
			t.heat++
			switch {
			case t.state == 0:
				t.state = 1
				out += " the " + t.name + " melts ."
			case t.state == 1 && t.name == "water" && t.heat >= 2:
				t.state = 2
				out += " the water boils ."
			}
		}
		if t.name == "seed" && t.parent == pot && e.holdsSubstance(pot) && t.growth < 2 {
			t.growth++
			out += map[int]string{1: " the seed sprouts .", 2: " the seed grows into a plant ."}[t.growth]
		}
	}
	e.checkGoal()
	return out
}

func (e *Env) checkGoal() {
	if !e.focused {
		return
	}
	f := e.things[e.find(e.in.Focus)]
	switch e.in.Procedure {
	case Boil:
		e.success = e.success || f.state == 2
	case Melt:
		e.success = e.success || f.state == 1
	case Grow:
		e.success = e.success || f.growth >= 2
	}
}

// candidates are the commands worth checking now.
func (e *Env) candidates() []Command {
	out := []Command{{Verb: LookAround}, {Verb: Inventory}, {Verb: Wait}}
	for _, r := range rooms {
		out = append(out, Command{Verb: GoTo, X: r})
	}
	var here []string
	for i, t := range e.things {
		if e.accessible(i) {
			here = append(here, t.name)
		}
	}
	for _, x := range here {
		for _, v := range []Verb{Open, Close, Activate, Deactivate, PickUp, FocusOn, MixThing} {
			out = append(out, Command{Verb: v, X: x})
		}
		for _, y := range here {
			out = append(out, Command{Verb: MoveTo, X: x, Y: y}, Command{Verb: PourInto, X: x, Y: y})
		}
	}
	return out
}

// AdmissibleCommands lists the applicable commands in candidate order.
func (e *Env) AdmissibleCommands() []Command {
	return slices.DeleteFunc(e.candidates(), func(c Command) bool { return !e.applicable(c) })
}

func (e *Env) Admissible() [][]tasks.Token {
	return textworld.EncodeActions(e.w.vocab, e.AdmissibleCommands())
}

func (e *Env) IsAdmissible(action []tasks.Token) bool {
	c, ok := textworld.ReadAction(e.w.vocab, action, ParseCommand)
	return ok && e.applicable(c)
}

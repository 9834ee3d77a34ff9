package sciworld

import "arew/tasks"

// ExpertCommand is the planner's next command. It knows where everything
// is (the learner sees only its room), walks there through the hallway,
// opens what is closed on the way, and follows the procedure:
//
//	boil:  focus on the water; bring the pot to the stove; activate it; wait, wait
//	melt:  focus on the substance; bring the bowl to the stove; activate it; wait
//	conductivity: focus on the object; bring it to the circuit; activate the
//	       circuit; move it to the redbox if the bulb lit, else the greenbox
//	grow:  focus on the seed; bring it to the flowerpot; bring the waterjug
//	       (picked up on the way when met); pour it into the flowerpot; wait, wait
//	mix:   pour each of the two primaries into the bowl; mix the bowl;
//	       focus on the product
//
// "bring X to Y" is: move X to Y if both are at hand, else pick X up if it
// is at hand, else walk towards Y. ok is false once done.
func (e *Env) ExpertCommand() (Command, bool) {
	if e.Done() {
		return Command{}, false
	}
	in := e.in
	if in.Procedure != Mix && !e.focused {
		return e.reach(e.find(in.Focus), Command{Verb: FocusOn, X: in.Focus}), true
	}
	switch in.Procedure {
	case Boil, Melt:
		holder := "pot"
		if in.Procedure == Melt {
			holder = "bowl"
		}
		h, stove := e.find(holder), e.find("stove")
		if e.things[h].parent != stove {
			return e.bring(h, stove, MoveTo), true
		}
		if !e.things[stove].active {
			return Command{Verb: Activate, X: "stove"}, true
		}
		return Command{Verb: Wait}, true
	case Conductivity:
		x, circuit := e.find(in.Focus), e.find("circuit")
		if !e.things[x].tested {
			if e.things[x].parent != circuit {
				return e.bring(x, circuit, MoveTo), true
			}
			return Command{Verb: Activate, X: "circuit"}, true
		}
		box := "greenbox"
		if e.things[x].conductor {
			box = "redbox"
		}
		return e.bring(x, e.find(box), MoveTo), true
	case Grow:
		seed, pot, jug := e.find("seed"), e.find("flowerpot"), e.find("waterjug")
		if e.accessible(jug) && e.things[jug].parent != inventory && e.roomOf(jug) != e.roomOf(pot) && !e.holdsSubstance(pot) {
			return Command{Verb: PickUp, X: "waterjug"}, true // take it along
		}
		if e.things[seed].parent != pot {
			return e.bring(seed, pot, MoveTo), true
		}
		if !e.holdsSubstance(pot) {
			return e.bring(jug, pot, PourInto), true
		}
		return Command{Verb: Wait}, true
	}
	bowl := e.find("bowl")
	if pr := e.find(in.Focus); pr >= 0 {
		return e.reach(pr, Command{Verb: FocusOn, X: in.Focus}), true
	}
	for _, p := range e.mixPair() {
		if x := e.find(p); e.things[x].parent != bowl {
			if !e.accessible(bowl) {
				return e.reach(bowl, Command{}), true
			}
			return e.reach(x, Command{Verb: PourInto, X: p, Y: "bowl"}), true
		}
	}
	return e.reach(bowl, Command{Verb: MixThing, X: "bowl"}), true
}

// mixPair is the two primaries whose mix is the task's product.
func (e *Env) mixPair() [2]string {
	for k, v := range mixes {
		if v == e.in.Focus {
			return k
		}
	}
	return [2]string{}
}

// reach walks to the room of i and opens the closed container it is in,
// then does c.
func (e *Env) reach(i int, c Command) Command {
	if e.accessible(i) {
		return c
	}
	r := e.roomOf(i)
	if r != e.room {
		if e.room != hallway && r != hallway {
			return Command{Verb: GoTo, X: rooms[hallway]}
		}
		return Command{Verb: GoTo, X: rooms[r]}
	}
	// the outermost closed container on the way
	closed := -1
	for p := e.things[i].parent; p >= 0; p = e.things[p].parent {
		if e.things[p].openable && !e.things[p].open {
			closed = p
		}
	}
	return Command{Verb: Open, X: e.things[closed].name}
}

// bring gets x to y with verb (move or pour).
func (e *Env) bring(x, y int, verb Verb) Command {
	if e.accessible(x) && e.accessible(y) {
		return Command{Verb: verb, X: e.things[x].name, Y: e.things[y].name}
	}
	if e.accessible(x) && e.things[x].parent != inventory {
		return Command{Verb: PickUp, X: e.things[x].name}
	}
	if !e.accessible(x) {
		return e.reach(x, Command{Verb: PickUp, X: e.things[x].name})
	}
	return e.reach(y, Command{})
}

// Expert is ExpertCommand as tokens (nil once done).
func (e *Env) Expert() []tasks.Token {
	c, ok := e.ExpertCommand()
	if !ok {
		return nil
	}
	return e.w.vocab.Encode(c.Words()...)
}

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
	if e.Stuck() {
		return Command{Verb: LookAround}, true
	}
	switch in.Procedure {
	case Boil, Melt:
		h, stove := e.things[e.find(in.Focus)].parent, e.find("stove")
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
		if jug == e.waterSource() && e.accessible(jug) && e.things[jug].parent != inventory && e.roomOf(jug) != e.roomOf(pot) && !e.holdsSubstance(pot) {
			return Command{Verb: PickUp, X: "waterjug"}, true // take it along
		}
		if e.things[seed].parent != pot {
			return e.bring(seed, pot, MoveTo), true
		}
		if !e.holdsSubstance(pot) {
			return e.bring(e.waterSource(), pot, PourInto), true
		}
		return Command{Verb: Wait}, true
	}
	bowl := e.find("bowl")
	if pr := e.find(in.Focus); pr >= 0 {
		return e.reach(pr, Command{Verb: FocusOn, X: in.Focus}), true
	}
	pair := e.mixPair()
	for _, p := range e.paintsIn(bowl) {
		if p != pair[0] && p != pair[1] {
			return e.reach(e.find(p), Command{Verb: PickUp, X: p}), true // take a wrong paint back out
		}
	}
	for _, p := range pair {
		if x := e.find(p); e.things[x].parent != bowl {
			return e.bring(x, bowl, PourInto), true
		}
	}
	return e.reach(bowl, Command{Verb: MixThing, X: "bowl"}), true
}

// Stuck reports that the learner's actions made the task impossible: the
// substance to heat is no longer in a carried container (poured into a
// fixture), no carried container holds water for the seed, or a paint the
// mix needs was mixed away into another colour. The expert then only looks
// around (an admissible action that changes nothing).
func (e *Env) Stuck() bool {
	in := e.in
	switch in.Procedure {
	case Boil, Melt:
		h := e.things[e.find(in.Focus)].parent
		return h < 0 || !e.things[h].portable
	case Grow:
		return !e.holdsSubstance(e.find("flowerpot")) && e.waterSource() < 0
	case Mix:
		pair := e.mixPair()
		return e.find(in.Focus) < 0 && (e.find(pair[0]) < 0 || e.find(pair[1]) < 0)
	}
	return false
}

// waterSource is a carried-kind container holding water (-1 if none).
func (e *Env) waterSource() int {
	for i, t := range e.things {
		if t.portable && t.container && e.holdsSubstance(i) {
			return i
		}
	}
	return -1
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

// bring gets x to y with verb (move or pour): act when both are at hand;
// else reach x; else open y's container if y is in this room; else carry x
// (pick it up) towards y.
func (e *Env) bring(x, y int, verb Verb) Command {
	switch {
	case e.accessible(x) && e.accessible(y):
		return Command{Verb: verb, X: e.things[x].name, Y: e.things[y].name}
	case !e.accessible(x):
		return e.reach(x, Command{Verb: PickUp, X: e.things[x].name})
	case e.roomOf(y) == e.room:
		return e.reach(y, Command{})
	case e.things[x].parent != inventory:
		return Command{Verb: PickUp, X: e.things[x].name}
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

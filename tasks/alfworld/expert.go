package alfworld

import "arew/tasks"

// ExpertCommand is the planner's next command from the current state. The
// planner reads the hidden state (where every object is, as ALFWorld's
// handcoded expert reads the PDDL state), so it walks straight to the
// target: go to its receptacle, open it if closed, take it, treat it at the
// device (sinkbasin, microwave, fridge), go to the first receptacle of the
// destination class, open it if closed, put it; PickTwo repeats for the
// second object, Examine carries the object to the desklamp and uses it. From
// a state the expert would never reach (holding a wrong object) it first
// puts that object down. ok is false once the episode is done.
func (e *Env) ExpertCommand() (c Command, ok bool) {
	if e.Done() {
		return Command{}, false
	}
	in := e.in
	if e.held >= 0 && e.objs[e.held].typ != in.Target {
		return e.putDown(), true
	}
	if in.Task == Examine {
		if e.held >= 0 {
			lamp := e.lamp()
			return e.reach(e.objs[lamp].rec, Command{Verb: Use, Obj: e.objs[lamp].thing()}), true
		}
		return e.fetch(e.nextTarget()), true
	}
	if e.held >= 0 {
		h := e.objs[e.held]
		var device string
		switch {
		case in.Task == Clean && !h.clean:
			device = "sinkbasin"
		case in.Task == Heat && !h.hot:
			device = "microwave"
		case in.Task == Cool && !h.cold:
			device = "fridge"
		}
		if device != "" {
			d := e.firstOf(device)
			verb := map[string]Verb{"sinkbasin": CleanWith, "microwave": HeatWith, "fridge": CoolWith}[device]
			if e.at != d {
				return Command{Verb: GoTo, Rec: e.recs[d].thing()}, true
			}
			return Command{Verb: verb, Obj: h.thing(), Rec: e.recs[d].thing()}, true
		}
		d := e.firstOf(in.Dest)
		return e.reach(d, Command{Verb: Put, Obj: h.thing(), Rec: e.recs[d].thing(), Prep: e.recs[d].prep}), true
	}
	return e.fetch(e.nextTarget()), true
}

// reach walks to r, opens it if needed, then does c there.
func (e *Env) reach(r int, c Command) Command {
	if e.at != r {
		return Command{Verb: GoTo, Rec: e.recs[r].thing()}
	}
	if e.recs[r].openable && !e.recs[r].open {
		return Command{Verb: Open, Rec: e.recs[r].thing()}
	}
	return c
}

func (e *Env) fetch(o int) Command {
	r := e.objs[o].rec
	return e.reach(r, Command{Verb: Take, Obj: e.objs[o].thing(), Rec: e.recs[r].thing()})
}

// putDown puts a held non-target object into the receptacle the agent
// faces, or the first surface of the room.
func (e *Env) putDown() Command {
	h := e.objs[e.held].thing()
	r := e.at
	if r < 0 {
		for i, rs := range e.recs {
			if !rs.openable {
				r = i
				break
			}
		}
	}
	return e.reach(r, Command{Verb: Put, Obj: h, Rec: e.recs[r].thing(), Prep: e.recs[r].prep})
}

// nextTarget is the first object of the target type not yet at the
// destination (for Examine: the first object of the type).
func (e *Env) nextTarget() int {
	first := -1
	for i, o := range e.objs {
		if o.typ != e.in.Target {
			continue
		}
		if first < 0 {
			first = i
		}
		if e.in.Task == Examine || o.rec < 0 || e.recs[o.rec].Class != e.in.Dest {
			return i
		}
	}
	return first
}

func (e *Env) firstOf(class string) int {
	for i, r := range e.recs {
		if r.Class == class {
			return i
		}
	}
	return -1
}

func (e *Env) lamp() int {
	for i, o := range e.objs {
		if o.typ == lampType {
			return i
		}
	}
	return -1
}

// Expert is ExpertCommand as tokens (nil once done).
func (e *Env) Expert() []tasks.Token {
	c, ok := e.ExpertCommand()
	if !ok {
		return nil
	}
	return e.encode(c.Words())
}

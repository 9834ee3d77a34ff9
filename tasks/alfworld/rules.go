package alfworld

import (
	"slices"

	"arew/tasks"
	"arew/tasks/textworld"
)

// accessible: the agent faces r and can reach inside it.
func (e *Env) accessible(r int) bool {
	return r >= 0 && e.at == r && (!e.recs[r].openable || e.recs[r].open)
}

// applicable is the rule book: a command applies only when it names things
// of this game and its preconditions hold; everything else is "nothing
// happens".
func (e *Env) applicable(c Command) bool {
	r := e.findRec(c.Rec)
	o := e.findObj(c.Obj)
	switch c.Verb {
	case Look, Inventory:
		return true
	case GoTo:
		return r >= 0 && r != e.at
	case Open:
		return r >= 0 && e.at == r && e.recs[r].openable && !e.recs[r].open
	case Close:
		return r >= 0 && e.at == r && e.recs[r].openable && e.recs[r].open
	case Take:
		return o >= 0 && e.held < 0 && e.accessible(r) && e.objs[o].rec == r && e.objs[o].typ != lampType
	case Put:
		return o >= 0 && e.held == o && e.accessible(r) && c.Prep == e.recs[r].prep
	case CleanWith, HeatWith, CoolWith:
		device := map[Verb]string{CleanWith: "sinkbasin", HeatWith: "microwave", CoolWith: "fridge"}[c.Verb]
		if o < 0 || e.held != o || r < 0 || e.at != r || e.recs[r].Class != device {
			return false
		}
		ot := objectType(e.objs[o].typ)
		return map[Verb]bool{CleanWith: ot.clean, HeatWith: ot.heat, CoolWith: ot.cool}[c.Verb]
	case Use:
		return o >= 0 && e.objs[o].typ == lampType && e.accessible(e.objs[o].rec)
	case ExamineThing:
		if c.Rec.Name != "" {
			return r >= 0 && r == e.at
		}
		return o >= 0 && (e.held == o || e.accessible(e.objs[o].rec))
	}
	return false
}

// apply carries out an applicable command and returns its observation.
func (e *Env) apply(c Command) string {
	r := e.findRec(c.Rec)
	o := e.findObj(c.Obj)
	switch c.Verb {
	case Look:
		return textJoin(e.lookText())
	case Inventory:
		if e.held < 0 {
			return "you are not carrying anything ."
		}
		return "you are carrying : a " + e.thing(e.held) + " ."
	case GoTo:
		e.at = r
		return "you arrive at the " + e.place(r) + " . " + e.contentsText(r)
	case Open:
		e.recs[r].open = true
		return "you open the " + e.place(r) + " . " + e.contentsText(r)
	case Close:
		e.recs[r].open = false
		return "you close the " + e.place(r) + " ."
	case Take:
		rs := &e.recs[r]
		rs.contents = slices.DeleteFunc(rs.contents, func(x int) bool { return x == o })
		e.objs[o].rec, e.held = -1, o
		return "you pick up the " + e.thing(o) + " from the " + e.place(r) + " ."
	case Put:
		e.recs[r].contents = append(e.recs[r].contents, o)
		e.objs[o].rec, e.held = r, -1
		return "you put the " + e.thing(o) + " " + c.Prep + " the " + e.place(r) + " ."
	case CleanWith:
		e.objs[o].clean = true
		return "you clean the " + e.thing(o) + " using the " + e.place(r) + " ."
	case HeatWith:
		e.objs[o].hot, e.objs[o].cold = true, false
		return "you heat the " + e.thing(o) + " using the " + e.place(r) + " ."
	case CoolWith:
		e.objs[o].cold, e.objs[o].hot = true, false
		return "you cool the " + e.thing(o) + " using the " + e.place(r) + " ."
	case Use:
		return "you turn on the " + e.thing(o) + " ."
	case ExamineThing:
		if c.Rec.Name != "" {
			return e.contentsText(r)
		}
		adj := ""
		if e.objs[o].clean {
			adj += "clean "
		}
		if e.objs[o].hot {
			adj += "hot "
		}
		if e.objs[o].cold {
			adj += "cool "
		}
		return "this is a " + adj + e.thing(o) + " ."
	}
	return textJoin(textworld.NothingHappens)
}

func textJoin(w []string) string {
	out := ""
	for i, s := range w {
		if i > 0 {
			out += " "
		}
		out += s
	}
	return out
}

// goalMet checks the task after command c was applied.
func (e *Env) goalMet(c Command) bool {
	in := e.in
	if in.Task == Examine {
		return c.Verb == Use && e.held >= 0 && e.objs[e.held].typ == in.Target
	}
	n := 0
	for _, o := range e.objs {
		if o.typ != in.Target || o.rec < 0 || e.recs[o.rec].Class != in.Dest {
			continue
		}
		if (in.Task == Clean && !o.clean) || (in.Task == Heat && !o.hot) || (in.Task == Cool && !o.cold) {
			continue
		}
		n++
	}
	if in.Task == PickTwo {
		return n >= 2
	}
	return n >= 1
}

// candidates are the commands worth checking now: every other command
// names something the agent cannot reach and cannot apply.
func (e *Env) candidates() []Command {
	var out []Command
	for r := range e.recs {
		out = append(out, Command{Verb: GoTo, Rec: e.recs[r].thing()})
	}
	if e.at >= 0 {
		here := e.recs[e.at].thing()
		out = append(out, Command{Verb: Open, Rec: here}, Command{Verb: Close, Rec: here})
		for _, o := range e.recs[e.at].contents {
			ot := e.objs[o].thing()
			out = append(out, Command{Verb: Take, Obj: ot, Rec: here}, Command{Verb: Use, Obj: ot})
		}
		if e.held >= 0 {
			h := e.objs[e.held].thing()
			out = append(out, Command{Verb: Put, Obj: h, Rec: here, Prep: e.recs[e.at].prep},
				Command{Verb: CleanWith, Obj: h, Rec: here}, Command{Verb: HeatWith, Obj: h, Rec: here},
				Command{Verb: CoolWith, Obj: h, Rec: here})
		}
		out = append(out, Command{Verb: ExamineThing, Rec: here})
		for _, o := range e.recs[e.at].contents {
			out = append(out, Command{Verb: ExamineThing, Obj: e.objs[o].thing()})
		}
	}
	if e.held >= 0 {
		out = append(out, Command{Verb: ExamineThing, Obj: e.objs[e.held].thing()})
	}
	return append(out, Command{Verb: Look}, Command{Verb: Inventory})
}

func (r recState) thing() Thing { return Thing{r.Class, r.Num} }
func (o objState) thing() Thing { return Thing{o.typ, o.num} }

// AdmissibleCommands lists the applicable commands, in candidate order.
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

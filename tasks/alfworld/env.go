package alfworld

import (
	"fmt"
	"slices"
	"strings"

	"arew/tasks"
	"arew/tasks/textworld"
)

type recState struct {
	Receptacle
	openable bool
	prep     string
	open     bool
	contents []int // object indices, in arrival order
}

type objState struct {
	typ              string
	num              int
	rec              int // receptacle index; -1 while held
	clean, hot, cold bool
}

// Env is one game being played (a textworld.Env).
type Env struct {
	w       *World
	in      *Instance
	recs    []recState
	objs    []objState
	at      int // receptacle the agent faces; -1 in the middle of the room
	held    int // object held; -1 for none
	steps   int
	success bool
	obs     []string
}

func newEnv(w *World, in *Instance) *Env {
	e := &Env{w: w, in: in, at: -1, held: -1}
	rt := &rooms[in.Layout.Room]
	for _, r := range in.Recs {
		c := rt.class(r.Class)
		e.recs = append(e.recs, recState{Receptacle: r, openable: c.openable, prep: c.prep})
	}
	for i, o := range in.Objects {
		e.objs = append(e.objs, objState{typ: o.Type, num: o.Num, rec: o.Rec})
		e.recs[o.Rec].contents = append(e.recs[o.Rec].contents, i)
	}
	e.obs = e.lookText()
	return e
}

// Instance is the game being played.
func (e *Env) Instance() *Instance { return e.in }

func (e *Env) Vocab() *tasks.Vocab { return e.w.vocab }

func (e *Env) encode(words []string) []tasks.Token { return e.w.vocab.Encode(words...) }

// GoalWords is the task description.
func (e *Env) GoalWords() []string {
	t := e.in.Target
	switch e.in.Task {
	case Examine:
		return textworld.Words("your task is to : look at " + t + " under the desklamp .")
	case PickTwo:
		return textworld.Words("your task is to : put two " + t + " " + e.destPrep() + " " + e.in.Dest + " .")
	}
	adj := map[TaskType]string{Clean: "clean ", Heat: "hot ", Cool: "cool "}[e.in.Task]
	return textworld.Words("your task is to : put a " + adj + t + " " + e.destPrep() + " " + e.in.Dest + " .")
}

func (e *Env) destPrep() string { return rooms[e.in.Layout.Room].class(e.in.Dest).prep }

func (e *Env) Goal() []tasks.Token        { return e.encode(e.GoalWords()) }
func (e *Env) Observation() []tasks.Token { return e.encode(e.obs) }
func (e *Env) Done() bool                 { return e.success || e.steps >= e.w.cfg.MaxSteps }
func (e *Env) Steps() int                 { return e.steps }
func (e *Env) MaxSteps() int              { return e.w.cfg.MaxSteps }
func (e *Env) Success() bool              { return e.success }

func (e *Env) Reward() float64 {
	if e.success {
		return 1
	}
	return 0
}

// Clone copies the game state.
func (e *Env) Clone() textworld.Env {
	c := *e
	c.recs = slices.Clone(e.recs)
	for i := range c.recs {
		c.recs[i].contents = slices.Clone(e.recs[i].contents)
	}
	c.objs = slices.Clone(e.objs)
	c.obs = slices.Clone(e.obs)
	return &c
}

func (e *Env) thing(o int) string { return fmt.Sprintf("%s %d", e.objs[o].typ, e.objs[o].num) }
func (e *Env) place(r int) string { return fmt.Sprintf("%s %d", e.recs[r].Class, e.recs[r].Num) }

func (e *Env) findRec(t Thing) int {
	for i, r := range e.recs {
		if r.Class == t.Name && r.Num == t.Num {
			return i
		}
	}
	return -1
}

func (e *Env) findObj(t Thing) int {
	for i, o := range e.objs {
		if o.typ == t.Name && o.num == t.Num {
			return i
		}
	}
	return -1
}

// contentsText says what a receptacle shows: closed, or its contents.
func (e *Env) contentsText(r int) string {
	rs := &e.recs[r]
	if rs.openable && !rs.open {
		return "the " + e.place(r) + " is closed ."
	}
	var items []string
	for _, o := range rs.contents {
		items = append(items, "a "+e.thing(o))
	}
	what := "nothing"
	if len(items) > 0 {
		what = strings.Join(items, " , ")
	}
	return rs.prep + " the " + e.place(r) + " , you see " + what + " ."
}

func (e *Env) lookText() []string {
	head := "you are in the middle of a " + rooms[e.in.Layout.Room].name + " ."
	if e.at >= 0 {
		head = "you are facing the " + e.place(e.at) + " ."
	}
	var items []string
	for r := range e.recs {
		items = append(items, "a "+e.place(r))
	}
	return textworld.Words(head + " looking quickly around you , you see " + strings.Join(items, " , ") + " .")
}

// Step applies a command given as tokens.
func (e *Env) Step(action []tasks.Token) ([]tasks.Token, error) {
	if e.Done() {
		return nil, fmt.Errorf("alfworld: step after the end of the episode")
	}
	e.steps++
	e.obs = textworld.NothingHappens
	if c, ok := textworld.ReadAction(e.w.vocab, action, ParseCommand); ok && e.applicable(c) {
		e.obs = textworld.Words(e.apply(c))
		e.success = e.success || e.goalMet(c)
	}
	return e.Observation(), nil
}

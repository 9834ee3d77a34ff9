package sciworld

import (
	"fmt"
	"slices"
	"strings"

	"arew/tasks"
	"arew/tasks/textworld"
)

// Env is one lab game being played (a textworld.Env).
type Env struct {
	w       *World
	in      *Instance
	things  []thing
	room    int
	focused bool
	failed  bool
	success bool
	steps   int
	obs     []string
}

func newEnv(w *World, in *Instance) *Env {
	e := &Env{w: w, in: in, things: slices.Clone(in.things), room: in.Start}
	e.obs = textworld.Words(e.describe())
	return e
}

// Instance is the game being played.
func (e *Env) Instance() *Instance { return e.in }

func (e *Env) Vocab() *tasks.Vocab        { return e.w.vocab }
func (e *Env) Goal() []tasks.Token        { return textworld.Encode(e.w.vocab, e.in.Goal()) }
func (e *Env) Observation() []tasks.Token { return e.w.vocab.Encode(e.obs...) }
func (e *Env) Done() bool                 { return e.success || e.failed || e.steps >= e.w.cfg.MaxSteps }
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
	c.things = slices.Clone(e.things)
	c.obs = slices.Clone(e.obs)
	return &c
}

func (e *Env) find(name string) int {
	for i, t := range e.things {
		if t.name == name && t.parent != nowhere {
			return i
		}
	}
	return -1
}

// roomOf is the room a thing is in (-1 in the inventory or nowhere).
func (e *Env) roomOf(i int) int {
	for {
		p := e.things[i].parent
		switch {
		case p == inventory || p == nowhere:
			return -1
		case p < 0:
			return -p - 1
		}
		i = p
	}
}

// accessible: the thing exists, and it is in the inventory or in the
// agent's room, with no closed container on the way.
func (e *Env) accessible(i int) bool {
	if i < 0 {
		return false
	}
	for {
		p := e.things[i].parent
		switch {
		case p == inventory:
			return true
		case p == nowhere:
			return false
		case p < 0:
			return -p-1 == e.room
		}
		if e.things[p].openable && !e.things[p].open {
			return false
		}
		i = p
	}
}

// inside: i is inside (or on) thing c, at any depth.
func (e *Env) inside(i, c int) bool {
	for p := e.things[i].parent; p >= 0; p = e.things[p].parent {
		if p == c {
			return true
		}
	}
	return false
}

var stateWords = []string{"solid", "liquid", "gas"}

// entry describes one visible thing: "a pot on the counter", "water that
// is liquid in the pot", "a freezer that is closed".
func (e *Env) entry(i int) string {
	t := e.things[i]
	s := "a " + t.name
	switch {
	case t.substance:
		s = t.name + " that is " + stateWords[t.state]
	case t.openable && !t.open:
		s += " that is closed"
	case t.device && t.name == "stove" && t.active:
		s += " that is on"
	case t.device && t.name == "stove":
		s += " that is off"
	}
	if p := t.parent; p >= 0 {
		rel := "on"
		if e.things[p].container {
			rel = "in"
		}
		s += " " + rel + " the " + e.things[p].name
	}
	return s
}

// describe lists what the agent sees in its room (a closed container, not
// its contents).
func (e *Env) describe() string {
	var items []string
	for i := range e.things {
		if e.things[i].parent != inventory && e.roomOf(i) == e.room && e.accessible(i) {
			items = append(items, e.entry(i))
		}
	}
	return "this is the " + rooms[e.room] + " . you see " + strings.Join(items, " , ") + " ."
}

func (e *Env) inventoryText() string {
	var items []string
	for i, t := range e.things {
		if t.parent == inventory {
			items = append(items, e.entry(i))
		}
	}
	if len(items) == 0 {
		return "you carry nothing ."
	}
	return "you carry " + strings.Join(items, " , ") + " ."
}

// Step applies a template action given as tokens.
func (e *Env) Step(action []tasks.Token) ([]tasks.Token, error) {
	if e.Done() {
		return nil, fmt.Errorf("sciworld: step after the end of the episode")
	}
	e.steps++
	e.obs = textworld.NothingHappens
	if c, ok := textworld.ReadAction(e.w.vocab, action, ParseCommand); ok && e.applicable(c) {
		e.obs = textworld.Words(e.apply(c))
	}
	return e.Observation(), nil
}

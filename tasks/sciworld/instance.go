package sciworld

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Where a thing is: a thing index (≥ 0), a room (inRoom(r)), the agent's
// inventory, or nowhere (a paint before it is mixed).
const (
	inventory = -100
	nowhere   = -200
)

func inRoom(r int) int { return -(r + 1) }

// thing is one object of the lab.
type thing struct {
	name      string
	parent    int
	fixture   bool
	container bool // things go in it; else, for fixtures, on it
	openable  bool
	open      bool
	device    bool
	active    bool
	portable  bool
	pourable  bool // paints pour themselves
	substance bool // water, chocolate, …: moves with its container
	state     int  // substances: 0 solid, 1 liquid, 2 gas
	heat      int
	conductor bool
	growth    int
	tested    bool
}

// Instance is a generated game.
type Instance struct {
	Procedure Procedure
	Focus     string // the thing to focus on (Mix: the product, at the end)
	Start     int    // the room the agent starts in
	things    []thing
}

// Fingerprint identifies an instance.
func (in *Instance) Fingerprint() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v %s start %d", in.Procedure, in.Focus, in.Start)
	for _, t := range in.things {
		fmt.Fprintf(&b, "|%s@%d", t.name, t.parent)
	}
	return b.String()
}

// generate draws a game of procedure p.
func generate(p Procedure, rng *rand.Rand) *Instance {
	in := &Instance{Procedure: p, Start: rng.IntN(len(rooms))}
	index := map[string]int{}
	for _, f := range fixtures {
		index[f.name] = len(in.things)
		in.things = append(in.things, thing{name: f.name, parent: inRoom(f.room), fixture: true,
			container: f.container, openable: f.openable, device: f.device})
	}
	var places []int
	for _, f := range fixtures {
		if f.placeable {
			places = append(places, index[f.name])
		}
	}
	add := func(t thing) int {
		in.things = append(in.things, t)
		return len(in.things) - 1
	}
	somewhere := func() int { return places[rng.IntN(len(places))] }
	used := map[string]bool{}
	switch p {
	case Boil:
		pot := add(thing{name: "pot", parent: somewhere(), portable: true, container: true})
		add(thing{name: "water", parent: pot, substance: true, state: 1})
		in.Focus = "water"
	case Melt:
		s := meltables[rng.IntN(len(meltables))]
		at := somewhere()
		if s == "ice" {
			at = index["freezer"]
		}
		bowl := add(thing{name: "bowl", parent: at, portable: true, container: true})
		add(thing{name: s, parent: bowl, substance: true})
		in.Focus = s
	case Conductivity:
		o := testObjects[rng.IntN(len(testObjects))]
		add(thing{name: o.name, parent: somewhere(), portable: true, conductor: o.conductive})
		used[o.name] = true
		in.Focus = o.name
	case Grow:
		add(thing{name: "seed", parent: somewhere(), portable: true})
		jug := add(thing{name: "waterjug", parent: somewhere(), portable: true, container: true})
		add(thing{name: "water", parent: jug, substance: true, state: 1})
		in.Focus = "seed"
	case Mix:
		studio := []int{index["table"], index["cabinet"]}
		perm := rng.Perm(3)
		a, b := primaries[perm[0]], primaries[perm[1]]
		if b < a {
			a, b = b, a
		}
		add(thing{name: "bowl", parent: studio[rng.IntN(2)], portable: true, container: true})
		for _, pt := range primaries {
			add(thing{name: pt, parent: studio[rng.IntN(2)], portable: true, pourable: true})
		}
		in.Focus = mixes[[2]string{a, b}]
		for _, pr := range products() { // every mixture, so a wrong mix makes one too
			add(thing{name: pr, parent: nowhere, portable: true, pourable: true})
		}
	}
	// distractors: test objects not in use, anywhere placeable.
	for k := 2 + rng.IntN(3); k > 0; k-- {
		o := testObjects[rng.IntN(len(testObjects))]
		if used[o.name] {
			continue
		}
		used[o.name] = true
		add(thing{name: o.name, parent: somewhere(), portable: true, conductor: o.conductive})
	}
	return in
}

// Goal is the task text.
func (in *Instance) Goal() string {
	switch in.Procedure {
	case Boil:
		return "your task is to boil water . first , focus on the water ."
	case Melt:
		return "your task is to melt the " + in.Focus + " . first , focus on the " + in.Focus + " ."
	case Conductivity:
		return "your task is to find out if the " + in.Focus + " is electrically conductive . first , focus on the " +
			in.Focus + " . if it is conductive , move it to the redbox . if it is not , move it to the greenbox ."
	case Grow:
		return "your task is to grow a plant from the seed . first , focus on the seed ."
	}
	return "your task is to make " + in.Focus + " . when you are done , focus on the " + in.Focus + " ."
}

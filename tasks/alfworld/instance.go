package alfworld

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"arew/tasks/textworld"
)

// TaskType is one of ALFWorld's six task families.
type TaskType uint8

const (
	PickPlace TaskType = iota // put a T in C
	Examine                   // look at T under the desklamp
	Clean                     // put a clean T in C
	Heat                      // put a hot T in C
	Cool                      // put a cool T in C
	PickTwo                   // put two T in C
)

// TaskTypes lists the six families in order.
var TaskTypes = []TaskType{PickPlace, Examine, Clean, Heat, Cool, PickTwo}

func (t TaskType) String() string {
	return [...]string{"pick_and_place", "look_at_obj_in_light", "pick_clean_then_place", "pick_heat_then_place", "pick_cool_then_place", "pick_two_obj_and_place"}[t]
}

// Layout is a room: its type and how many receptacles of each class.
type Layout struct {
	Room   int   // index into rooms
	Counts []int // per class of the room, in the room's class order
}

// Signature identifies a layout by its room and receptacle counts.
func (l Layout) Signature() string {
	var b strings.Builder
	b.WriteString(rooms[l.Room].name)
	for i, n := range l.Counts {
		fmt.Fprintf(&b, " %s×%d", rooms[l.Room].recs[i].name, n)
	}
	return b.String()
}

// Receptacle is one numbered receptacle of an instance.
type Receptacle struct {
	Class string
	Num   int
}

// Placement is an object and the receptacle it starts in.
type Placement struct {
	Type string
	Num  int
	Rec  int // index into Instance.Recs
}

// Instance is a generated game: the layout, its receptacles, the objects
// and where they start, and the task.
type Instance struct {
	Layout  Layout
	Recs    []Receptacle
	Objects []Placement
	Task    TaskType
	Target  string // the object type the task is about
	Dest    string // the receptacle class it must end in ("" for Examine)
	// Targets are the indices in Objects of the task's objects (two for
	// PickTwo); the desklamp, when present, is an object too.
	Targets []int
}

// Fingerprint identifies an instance: layout, placements and task.
func (in *Instance) Fingerprint() string {
	var b strings.Builder
	b.WriteString(in.Layout.Signature())
	for _, o := range in.Objects {
		r := in.Recs[o.Rec]
		fmt.Fprintf(&b, "|%s %d@%s %d", o.Type, o.Num, r.Class, r.Num)
	}
	fmt.Fprintf(&b, "|%v %s %s", in.Task, in.Target, in.Dest)
	return b.String()
}

// randomLayout draws receptacle counts for room.
func randomLayout(room int, rng *rand.Rand) Layout {
	rt := &rooms[room]
	l := Layout{Room: room, Counts: make([]int, len(rt.recs))}
	for i, c := range rt.recs {
		l.Counts[i] = c.min + rng.IntN(c.max-c.min+1)
	}
	return l
}

func (l Layout) present(class string) bool {
	for i, c := range rooms[l.Room].recs {
		if c.name == class {
			return l.Counts[i] > 0
		}
	}
	return false
}

// presentOf keeps the classes of names that l has.
func (l Layout) presentOf(names []string) []string {
	var out []string
	for _, n := range names {
		if l.present(n) {
			out = append(out, n)
		}
	}
	return out
}

func supports(t TaskType, ot *objType) bool {
	switch t {
	case Examine:
		return ot.see
	case Clean:
		return ot.clean
	case Heat:
		return ot.heat
	case Cool:
		return ot.cool
	}
	return true
}

// generate builds the instance for task type t in layout l; ood hides the
// targets in classes of their type's other list. ok is false when this
// layout cannot host such a task (the caller draws again).
func generate(l Layout, t TaskType, ood bool, rng *rand.Rand) (in *Instance, ok bool) {
	rt := &rooms[l.Room]
	in = &Instance{Layout: l, Task: t}
	for i, c := range rt.recs {
		for n := 1; n <= l.Counts[i]; n++ {
			in.Recs = append(in.Recs, Receptacle{c.name, n})
		}
	}
	recsOf := func(class string) []int {
		var out []int
		for i, r := range in.Recs {
			if r.Class == class {
				out = append(out, i)
			}
		}
		return out
	}
	// the target type: supports the task and can be hidden in this split.
	var cands []string
	for _, name := range rt.objs {
		ot := objectType(name)
		where := ot.usual
		if ood {
			where = ot.other
		}
		if supports(t, ot) && len(l.presentOf(where)) > 0 && len(l.presentOf(ot.usual)) > 0 {
			cands = append(cands, name)
		}
	}
	if len(cands) == 0 {
		return nil, false
	}
	in.Target = cands[rng.IntN(len(cands))]
	ot := objectType(in.Target)
	hide := l.presentOf(ot.usual)
	if ood {
		hide = l.presentOf(ot.other)
	}
	n := 1
	if t == PickTwo {
		n = 2
	}
	srcClasses := map[string]bool{}
	for k := 0; k < n; k++ {
		class := hide[rng.IntN(len(hide))]
		srcClasses[class] = true
		rs := recsOf(class)
		in.Targets = append(in.Targets, len(in.Objects))
		in.Objects = append(in.Objects, Placement{in.Target, k + 1, rs[rng.IntN(len(rs))]})
	}
	if t != Examine {
		var dests []string
		for _, c := range l.presentOf(append(slices.Clone(ot.usual), ot.other...)) {
			device := map[TaskType]string{Clean: "sinkbasin", Heat: "microwave", Cool: "fridge"}[t]
			if !srcClasses[c] && c != device {
				dests = append(dests, c)
			}
		}
		if len(dests) == 0 {
			return nil, false
		}
		in.Dest = dests[rng.IntN(len(dests))]
	}
	if len(rt.lamp) > 0 {
		lampAt := l.presentOf(rt.lamp)
		if len(lampAt) == 0 {
			return nil, false
		}
		rs := recsOf(lampAt[rng.IntN(len(lampAt))])
		in.Objects = append(in.Objects, Placement{lampType, 1, rs[rng.IntN(len(rs))]})
	} else if t == Examine {
		return nil, false
	}
	// distractors: other types of the room, at their usual places.
	count := map[string]int{}
	nd := minDistractors + rng.IntN(maxDistractors-minDistractors+1)
	for k := 0; k < nd; k++ {
		name := rt.objs[rng.IntN(len(rt.objs))]
		where := l.presentOf(objectType(name).usual)
		if name == in.Target || len(where) == 0 || count[name] == 2 {
			continue
		}
		count[name]++
		rs := recsOf(where[rng.IntN(len(where))])
		in.Objects = append(in.Objects, Placement{name, count[name], rs[rng.IntN(len(rs))]})
	}
	return in, true
}

const (
	minDistractors = 4
	maxDistractors = 9
)

// instanceStream is the RNG stream of the instance draw.
const instanceStream = 1

// seenLayout is layout id of the seen pool, a pure function of the seed;
// the pool cycles through the room types so that every task type has rooms.
func seenLayout(seed uint64, id int) Layout {
	rng := rand.New(rand.NewPCG(seed^0xA1F0, uint64(id)))
	return randomLayout(id%len(rooms), rng)
}

// Instance makes instance index of split: Train, Test and Val draw a
// layout of the seen pool and hide the targets at their usual places;
// TestOOD draws a layout outside the pool, and hides the targets where
// training never puts them in the games Config.Unusual names, at their
// usual places in the others. A draw that repeats a game of another split
// is drawn again (textworld.Keys).
func (w *World) Instance(split textworld.Split, index int) (*Instance, error) {
	rng, err := w.cfg.Sizes().Draw(w.cfg.Seed, split, index, instanceStream)
	if err != nil {
		return nil, err
	}
	t := TaskTypes[rng.IntN(len(TaskTypes))]
	unusual := split == textworld.TestOOD && w.cfg.Unusual(index)
	for try := 0; try < 1000; try++ {
		var l Layout
		if split == textworld.TestOOD {
			room := rng.IntN(len(rooms))
			l = randomLayout(room, rng)
			if w.seen[l.Signature()] {
				continue
			}
		} else {
			l = w.pool[rng.IntN(len(w.pool))]
		}
		if !slices.Contains(rooms[l.Room].tasks, t) {
			continue
		}
		in, ok := generate(l, t, unusual, rng)
		if !ok {
			continue
		}
		fresh, err := w.keys.Fresh(split, in.Fingerprint(), w.cfg.Test, w.fingerprint)
		if err != nil {
			return nil, err
		}
		if fresh {
			return in, nil
		}
	}
	return nil, fmt.Errorf("alfworld: no %v instance found for %v %d (layout pool too small?)", t, split, index)
}

// fingerprint is the fingerprint of instance index of split.
func (w *World) fingerprint(split textworld.Split, index int) (string, error) {
	in, err := w.Instance(split, index)
	if err != nil {
		return "", err
	}
	return in.Fingerprint(), nil
}

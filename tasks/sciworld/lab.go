package sciworld

// Rooms: the hallway joins the four others.
var rooms = []string{"hallway", "kitchen", "workshop", "greenhouse", "studio"}

const hallway = 0

// fixture is a piece of furniture or a device that stays in its room.
type fixture struct {
	name             string
	room             int
	container        bool // things go in it (else on it)
	openable, device bool
	placeable        bool // task items may start here
}

var fixtures = []fixture{
	{name: "bench", room: 0, placeable: true},
	{name: "closet", room: 0, container: true, openable: true, placeable: true},
	{name: "stove", room: 1, device: true},
	{name: "freezer", room: 1, container: true, openable: true},
	{name: "cupboard", room: 1, container: true, openable: true, placeable: true},
	{name: "counter", room: 1, placeable: true},
	{name: "drawer", room: 1, container: true, openable: true, placeable: true},
	{name: "circuit", room: 2, device: true},
	{name: "redbox", room: 2, container: true},
	{name: "greenbox", room: 2, container: true},
	{name: "workbench", room: 2, placeable: true},
	{name: "toolbox", room: 2, container: true, openable: true, placeable: true},
	{name: "flowerpot", room: 3, container: true},
	{name: "shelf", room: 3, placeable: true},
	{name: "crate", room: 3, container: true, openable: true, placeable: true},
	{name: "table", room: 4, placeable: true},
	{name: "cabinet", room: 4, container: true, openable: true, placeable: true},
}

// Test objects of the conductivity task, and whether they conduct.
var testObjects = []struct {
	name       string
	conductive bool
}{
	{"fork", true}, {"nail", true}, {"key", true}, {"coin", true},
	{"eraser", false}, {"pencil", false}, {"cork", false}, {"marble", false},
}

// Substances to melt (all melt at the first heat step; water also boils).
var meltables = []string{"chocolate", "butter", "wax", "ice"}

// Paints: two primaries poured into the bowl and mixed give the product
// (keys in sorted order).
var (
	primaries = []string{"redpaint", "bluepaint", "yellowpaint"}
	mixes     = map[[2]string]string{
		{"bluepaint", "redpaint"}:    "purplepaint",
		{"redpaint", "yellowpaint"}:  "orangepaint",
		{"bluepaint", "yellowpaint"}: "greenpaint",
	}
)

// Containers that can be carried.
var carried = []string{"pot", "bowl", "waterjug"}

// Procedure is a task family of the lab.
type Procedure uint8

const (
	Boil         Procedure = iota // boil the water in the pot on the stove
	Melt                          // melt a substance in the bowl on the stove
	Conductivity                  // test an object on the circuit, file it in the right box
	Grow                          // plant the seed in the flowerpot, water it, wait
	Mix                           // pour two paints in the bowl, mix, focus on the result
)

// Procedures lists the five families.
var Procedures = []Procedure{Boil, Melt, Conductivity, Grow, Mix}

func (p Procedure) String() string {
	return [...]string{"boil", "melt", "conductivity", "grow", "mix"}[p]
}

package alfworld

// recClass is a kind of receptacle: its name, whether it opens, the
// preposition of put (in a container, on a surface) and how many a layout
// of its room holds.
type recClass struct {
	name     string
	openable bool
	prep     string
	min, max int
}

// objType is a kind of object: which treatments apply, whether it can be
// examined under the lamp, and where it lies. usual is where it is put in
// training and in the in-distribution test; other is where the
// out-of-distribution split hides task targets (never used in training).
type objType struct {
	name                   string
	clean, heat, cool, see bool
	usual, other           []string
}

// roomType lists a room's receptacle classes, object types and task types.
type roomType struct {
	name  string
	recs  []recClass
	objs  []string
	tasks []TaskType
	lamp  []string // classes that may hold the desklamp (none: no lamp)
}

var rooms = []roomType{
	{
		name: "kitchen",
		recs: []recClass{
			{"cabinet", true, "in", 2, 6}, {"drawer", true, "in", 1, 4}, {"fridge", true, "in", 1, 1},
			{"microwave", true, "in", 1, 1}, {"sinkbasin", false, "in", 1, 1}, {"countertop", false, "on", 1, 3},
			{"diningtable", false, "on", 0, 1}, {"shelf", false, "on", 0, 3}, {"stoveburner", false, "on", 1, 4},
			{"garbagecan", false, "in", 1, 1},
		},
		objs:  []string{"apple", "tomato", "potato", "egg", "bread", "lettuce", "mug", "cup", "plate", "bowl", "knife", "spoon", "fork", "pan", "pot"},
		tasks: []TaskType{PickPlace, Clean, Heat, Cool, PickTwo},
	},
	{
		name: "bathroom",
		recs: []recClass{
			{"cabinet", true, "in", 1, 4}, {"countertop", false, "on", 1, 1}, {"sinkbasin", false, "in", 1, 2},
			{"toilet", false, "on", 1, 1}, {"towelholder", false, "on", 1, 1}, {"garbagecan", false, "in", 1, 1},
			{"shelf", false, "on", 0, 2}, {"drawer", true, "in", 0, 3}, {"bathtubbasin", false, "in", 0, 1},
		},
		objs:  []string{"soapbar", "cloth", "spraybottle", "toiletpaper", "candle", "soapbottle", "towel"},
		tasks: []TaskType{PickPlace, Clean, PickTwo},
	},
	{
		name: "bedroom",
		recs: []recClass{
			{"bed", false, "on", 1, 1}, {"desk", false, "on", 0, 1}, {"dresser", false, "on", 1, 1},
			{"drawer", true, "in", 2, 5}, {"shelf", false, "on", 1, 3}, {"sidetable", false, "on", 1, 2},
			{"garbagecan", false, "in", 1, 1}, {"laundryhamper", false, "in", 0, 1},
		},
		objs:  []string{"book", "cd", "pen", "pencil", "cellphone", "keychain", "creditcard", "alarmclock", "pillow"},
		tasks: []TaskType{PickPlace, Examine, PickTwo},
		lamp:  []string{"desk", "sidetable"},
	},
	{
		name: "livingroom",
		recs: []recClass{
			{"sofa", false, "on", 1, 1}, {"armchair", false, "on", 0, 2}, {"coffeetable", false, "on", 1, 1},
			{"sidetable", false, "on", 1, 2}, {"tvstand", false, "on", 0, 1}, {"drawer", true, "in", 1, 4},
			{"shelf", false, "on", 0, 3}, {"garbagecan", false, "in", 1, 1}, {"cabinet", true, "in", 0, 2},
		},
		objs:  []string{"remotecontrol", "newspaper", "keychain", "creditcard", "vase", "statue", "laptop", "watch", "book"},
		tasks: []TaskType{PickPlace, Examine, PickTwo},
		lamp:  []string{"sidetable"},
	},
}

var objects = []objType{
	{"apple", true, true, true, false, []string{"fridge", "countertop"}, []string{"diningtable", "cabinet", "garbagecan"}},
	{"tomato", true, true, true, false, []string{"fridge", "countertop"}, []string{"sinkbasin", "cabinet", "diningtable"}},
	{"potato", true, true, true, false, []string{"fridge", "countertop", "garbagecan"}, []string{"cabinet", "sinkbasin"}},
	{"egg", true, true, true, false, []string{"fridge", "countertop"}, []string{"drawer", "stoveburner", "garbagecan"}},
	{"bread", true, true, true, false, []string{"countertop", "diningtable"}, []string{"fridge", "cabinet"}},
	{"lettuce", true, true, true, false, []string{"fridge"}, []string{"countertop", "sinkbasin", "diningtable"}},
	{"mug", true, true, true, false, []string{"cabinet", "countertop"}, []string{"sinkbasin", "microwave", "drawer"}},
	{"cup", true, true, true, false, []string{"cabinet", "diningtable"}, []string{"fridge", "sinkbasin", "countertop"}},
	{"plate", true, true, true, false, []string{"cabinet", "countertop"}, []string{"fridge", "diningtable", "drawer"}},
	{"bowl", true, true, true, false, []string{"cabinet", "shelf"}, []string{"fridge", "sinkbasin", "countertop"}},
	{"knife", true, false, false, false, []string{"drawer", "countertop"}, []string{"sinkbasin", "cabinet"}},
	{"spoon", true, false, false, false, []string{"drawer", "diningtable"}, []string{"sinkbasin", "countertop"}},
	{"fork", true, false, false, false, []string{"drawer"}, []string{"countertop", "cabinet", "sinkbasin"}},
	{"pan", true, false, true, false, []string{"stoveburner", "cabinet"}, []string{"countertop", "sinkbasin"}},
	{"pot", true, false, true, false, []string{"stoveburner"}, []string{"cabinet", "countertop", "fridge"}},
	{"soapbar", true, false, false, false, []string{"sinkbasin", "countertop"}, []string{"cabinet", "toilet", "garbagecan"}},
	{"cloth", true, false, false, false, []string{"cabinet", "countertop"}, []string{"toilet", "garbagecan", "sinkbasin"}},
	{"spraybottle", false, false, false, false, []string{"cabinet", "toilet"}, []string{"countertop", "garbagecan"}},
	{"toiletpaper", false, false, false, false, []string{"toilet", "cabinet"}, []string{"countertop", "garbagecan", "towelholder"}},
	{"candle", false, false, false, false, []string{"countertop", "shelf"}, []string{"toilet", "cabinet"}},
	{"soapbottle", false, false, false, false, []string{"countertop"}, []string{"cabinet", "toilet", "garbagecan"}},
	{"towel", false, false, false, false, []string{"towelholder"}, []string{"countertop", "cabinet", "toilet"}},
	{"book", false, false, false, true, []string{"bed", "desk", "shelf"}, []string{"drawer", "garbagecan", "sofa", "dresser"}},
	{"cd", false, false, false, true, []string{"desk", "drawer"}, []string{"bed", "shelf", "garbagecan"}},
	{"pen", false, false, false, true, []string{"desk", "drawer"}, []string{"bed", "dresser", "shelf"}},
	{"pencil", false, false, false, true, []string{"desk", "drawer"}, []string{"bed", "sidetable", "garbagecan"}},
	{"cellphone", false, false, false, true, []string{"bed", "sidetable", "desk"}, []string{"drawer", "dresser", "garbagecan"}},
	{"keychain", false, false, false, true, []string{"dresser", "sidetable"}, []string{"bed", "shelf", "drawer", "sofa"}},
	{"creditcard", false, false, false, true, []string{"desk", "dresser"}, []string{"bed", "drawer", "sofa", "coffeetable"}},
	{"alarmclock", false, false, false, true, []string{"sidetable", "desk"}, []string{"shelf", "dresser", "drawer"}},
	{"pillow", false, false, false, false, []string{"bed"}, []string{"sidetable", "dresser", "shelf"}},
	{"remotecontrol", false, false, false, true, []string{"sofa", "coffeetable"}, []string{"drawer", "sidetable", "armchair"}},
	{"newspaper", false, false, false, true, []string{"coffeetable", "sofa"}, []string{"drawer", "garbagecan", "sidetable"}},
	{"vase", false, false, false, true, []string{"shelf", "sidetable"}, []string{"coffeetable", "tvstand", "garbagecan"}},
	{"statue", false, false, false, true, []string{"shelf", "coffeetable"}, []string{"sidetable", "drawer", "sofa"}},
	{"laptop", false, false, false, true, []string{"coffeetable", "sofa"}, []string{"sidetable", "armchair", "drawer"}},
	{"watch", false, false, false, true, []string{"sidetable", "coffeetable"}, []string{"drawer", "sofa", "shelf"}},
}

// The desklamp is an object that stays where it is: "use desklamp N".
const lampType = "desklamp"

func objectType(name string) *objType {
	for i := range objects {
		if objects[i].name == name {
			return &objects[i]
		}
	}
	return nil
}

func (r *roomType) class(name string) *recClass {
	for i := range r.recs {
		if r.recs[i].name == name {
			return &r.recs[i]
		}
	}
	return nil
}

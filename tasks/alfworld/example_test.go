package alfworld_test

import (
	"fmt"

	"arew/tasks/alfworld"
	"arew/tasks/textworld"
)

// Example plays the expert on the game the package doc shows.
func Example() {
	w, err := alfworld.New(alfworld.DefaultConfig())
	if err != nil {
		panic(err)
	}
	e, err := w.NewEnv(textworld.TestOOD, 3)
	if err != nil {
		panic(err)
	}
	v := w.Vocab()
	fmt.Println(v.Decode(e.Goal()))
	fmt.Println(v.Decode(e.Observation()))
	for !e.Done() {
		a := e.Expert()
		obs, _ := e.Step(a)
		fmt.Println(v.Decode(a), "|", v.Decode(obs))
	}
	fmt.Println("reward", e.Reward())
	// Output:
	// your task is to : put a hot plate in cabinet .
	// you are in the middle of a kitchen . looking quickly around you , you see a cabinet 1 , a cabinet 2 , a cabinet 3 , a cabinet 4 , a drawer 1 , a drawer 2 , a drawer 3 , a fridge 1 , a microwave 1 , a sinkbasin 1 , a countertop 1 , a countertop 2 , a diningtable 1 , a shelf 1 , a shelf 2 , a shelf 3 , a stoveburner 1 , a garbagecan 1 .
	// go to fridge 1 | you arrive at the fridge 1 . the fridge 1 is closed .
	// open fridge 1 | you open the fridge 1 . in the fridge 1 , you see a plate 1 .
	// take plate 1 from fridge 1 | you pick up the plate 1 from the fridge 1 .
	// go to microwave 1 | you arrive at the microwave 1 . the microwave 1 is closed .
	// heat plate 1 with microwave 1 | you heat the plate 1 using the microwave 1 .
	// go to cabinet 1 | you arrive at the cabinet 1 . the cabinet 1 is closed .
	// open cabinet 1 | you open the cabinet 1 . in the cabinet 1 , you see nothing .
	// put plate 1 in cabinet 1 | you put the plate 1 in the cabinet 1 .
	// reward 1
}
